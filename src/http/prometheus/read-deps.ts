import type { MetricsReader } from "../../metrics/reader.ts";
import type { Offload } from "../../promql/offload.ts";

/** What the Prometheus query and discovery routes need: the collector's Prometheus app and the agent's local API. */
export interface PrometheusReadDeps {
  store: MetricsReader;
  /** Outpost's version, reported by buildinfo. */
  version: string;
  now?: () => number;
  /** Where half of a large query is evaluated (a worker thread); absent: all on this thread. */
  offload?: Offload;
}
