import type { RollupTier } from "../../../../src/metrics/rollup/tiers.ts";
import type { StepRequest } from "./rollup-series.ts";

/**
 * The roller's steps computed in another thread (collector/metrics/rollup-offload.ts, given to
 * the store by the collector): the thread reads metrics.db on a connection of its own and
 * answers the blocks encoded; the store writes them and the marks on its connection, in one
 * transaction per answer, as it writes the steps it computes itself (docs/storage.md,
 * "The roller on the second core").
 */

/** A block a step wrote: its bytes, or undefined when no bucket is left (the block is deleted). */
export interface EncodedBlock {
  tier: number;
  start: number;
  body?: Uint8Array;
}

export interface EncodedStep {
  sid: number;
  end: number;
  done: boolean;
  chunks: number;
  blocks: EncodedBlock[];
}

export interface RemoteSteps {
  steps: EncodedStep[];
  /** Chunks that did not decode: [sid, cid, why]. */
  corrupt: [number, number, string][];
  /** The thread's time on them. */
  seconds: number;
}

export interface RollupCompute {
  /**
   * The steps computed on the database at `path` with the tiers `tiers`, at the store's time
   * `now`; undefined when the thread could not (it failed or was lost: the store computes them itself).
   */
  compute(path: string, tiers: readonly RollupTier[], steps: StepRequest[], now: number): Promise<RemoteSteps | undefined>;
}

/** A window of chunks being rolled up, as the roller's scheduling holds it between a request and its answer (opaque there). */
export interface RemoteWindow {
  readonly low: number;
  readonly high: number;
}
