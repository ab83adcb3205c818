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
   * The server's memory governor, told when a query is answered: what it grew the engine's
   * heap by is garbage by then (its step values, the worker's results, the answer's chunks).
   */
  memory?: QueryMemory;
}

/** The part of the memory governor (src/http/memory-governor.ts) queries report to. */
export interface QueryMemory {
  /** A query starts: what to give answered() once it is answered. */
  queryStarts(): number | undefined;
  /** The query is answered; may collect now. */
  answered(before: number | undefined): void;
}
