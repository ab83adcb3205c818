import type { WriteDeps } from "../../metrics/write-points.ts";
import type { Offload } from "../../../src/promql/offload.ts";

export interface PrometheusDeps extends WriteDeps {
  /** Outpost's version, reported by buildinfo. */
  version: string;
  now?: () => number;
  /** Where half of a large query is evaluated (a worker thread); absent: all on this thread. */
  offload?: Offload;
}
