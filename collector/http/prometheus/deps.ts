import type { PointsBus } from "../../events/points-bus.ts";
import type { MetricsStore } from "../../store/metrics/types.ts";
import type { Offload } from "../../../src/promql/offload.ts";

export interface PrometheusDeps {
  store: MetricsStore;
  bus: PointsBus;
  /** Outpost's version, reported by buildinfo. */
  version: string;
  now?: () => number;
  /** Where half of a large query is evaluated (a worker thread); absent: all on this thread. */
  offload?: Offload;
}
