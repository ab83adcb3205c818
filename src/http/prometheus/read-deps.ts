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
  /**
   * The server's memory governor: what a query grew the engine's heap by, taken once it is
   * answered, is counted as garbage (its step values, the worker's results and the answer's
   * chunks are garbage by then), so that a run of large queries is collected as ingest is.
   */
  memory?: QueryMemory;
}

/** The part of the memory governor (src/http/memory-governor.ts) queries report to. */
export interface QueryMemory {
  /** The engine's heap now, with the memory its objects hold (bytes). */
  heapBytes(): number;
  /** Counts garbage; may collect now. */
  garbage(bytes: number): void;
}
