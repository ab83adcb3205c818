import type { ReadBuffers } from "./values.ts";

/** Samples read per batch: large enough to amortise the evaluator's set-up, small in memory. */
export const BATCH_SAMPLES = 65_536;

/**
 * Buffers for the raw samples of one batch, handed out again for the next batch (whose
 * evaluation starts only after the previous batch's results were folded or copied).
 */
export class BatchBuffers {
  private readonly pool: ArrayBuffer[] = [];
  private next = 0;

  readonly take: ReadBuffers = (bytes) => {
    let b = this.pool[this.next];
    if (!b || b.byteLength < bytes) this.pool[this.next] = b = new ArrayBuffer(bytes);
    this.next++;
    return b;
  };

  /** The batch is done with: its buffers may be handed out again. */
  reuse(): void {
    this.next = 0;
  }
}
