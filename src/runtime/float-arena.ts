/**
 * Float64 columns handed out from one reused slab, all taken back at once (reset): the
 * roller's decoded blocks live for one series' step, and decoding them into fresh arrays made
 * megabytes of garbage a second under ingest (docs/storage.md, "Rollup tiers"); a PromQL
 * query's samples live until it is evaluated (src/runtime/read-arenas.ts).
 */

/** The slab never grows beyond this many numbers (4 MiB); a step needing more gets fresh arrays for the rest. */
const MAX_SLAB = 512 * 1024;

export class FloatArena {
  private slab: Float64Array;
  private used = 0;
  /** Numbers asked for beyond the slab since the last reset: the next slab's size. */
  private spilled = 0;

  /**
   * `zero`: whether take() hands out zeros (the roller's sums start from them) or whatever the
   * slab held (a read writes every number it is given).
   */
  constructor(
    private readonly zero = true,
    initial = 16 * 1024,
  ) {
    this.slab = new Float64Array(initial);
  }

  /**
   * n numbers: a view of the slab, valid until the next reset (a fresh array when the slab is
   * full). A bound function: it is the FloatAlloc that decoders and merges are given.
   */
  readonly take = (n: number): Float64Array => {
    if (this.used + n > this.slab.length) {
      this.spilled += n;
      return new Float64Array(n);
    }
    const v = this.slab.subarray(this.used, this.used + n);
    if (this.zero) v.fill(0);
    this.used += n;
    return v;
  };

  /**
   * Of the view take() handed out last, only its first n numbers are kept: the rest is handed
   * out again (a read that decoded whole chunks keeps the part in its range). Nothing for any
   * other view.
   */
  shrink(view: Float64Array, n: number): void {
    const start = view.byteOffset >>> 3;
    if (view.buffer === this.slab.buffer && start + view.length === this.used && n <= view.length) this.used = start + n;
  }

  /** Takes every view back: their memory is handed out again. */
  reset(): void {
    if (this.spilled > 0 && this.slab.length < MAX_SLAB) {
      let size = this.slab.length;
      while (size < this.used + this.spilled && size < MAX_SLAB) size *= 2;
      this.slab = new Float64Array(size);
    }
    this.used = 0;
    this.spilled = 0;
  }

  /** The slab's size in numbers (for tests). */
  get capacity(): number {
    return this.slab.length;
  }
}
