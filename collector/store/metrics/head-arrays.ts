/**
 * Float64Arrays of the heads' capacities (powers of two), kept for reuse between seals. Why: under
 * steady ingest every head fills to about 2,000 points, is sealed, and grows again from 16 by
 * doubling: about 64 KB of fresh arrays per series and round (64 MB for 1,000 series), which the
 * allocator gets as fresh pages from the kernel, and on a hypervisor each page fault costs
 * microseconds (issue 28: the heads were a fifth of the collector's page faults under ingest).
 * Arrays given back here are only those no reader can still see: reads copy the head's points
 * (sqlite/reads.ts), so a reused array never shows one series' points in another's answer.
 * Bounded in bytes; what does not fit is left to the garbage collector as before.
 */
/**
 * Smaller arrays are left to the garbage collector: the engine allocates them in its own heap,
 * where they are cheap, and pooled they would fill the pool with the steps of every head's
 * growth and leave no room for the large arrays a seal gives back.
 */
const MIN_POOLED = 1024;

export class HeadArrays {
  private readonly free = new Map<number, Float64Array[]>();
  private held = 0;
  /** Arrays handed out from the pool and made new (for tests and the figures). */
  reused = 0;
  made = 0;

  constructor(readonly maxBytes: number) {}

  /** An array of exactly `capacity` elements; what it holds is stale. */
  take(capacity: number): Float64Array {
    const a = capacity < MIN_POOLED ? undefined : this.free.get(capacity)?.pop();
    if (a) {
      this.held -= a.byteLength;
      this.reused++;
      return a;
    }
    this.made++;
    return new Float64Array(capacity);
  }

  /** Gives an array back; the caller must hold no view of it any more. */
  give(a: Float64Array | undefined): void {
    if (!a || a.length < MIN_POOLED || a.byteOffset !== 0 || this.held + a.byteLength > this.maxBytes) return;
    let list = this.free.get(a.length);
    if (!list) this.free.set(a.length, (list = []));
    list.push(a);
    this.held += a.byteLength;
  }

  /** Bytes held for reuse. */
  get bytes(): number {
    return this.held;
  }

  /** Lets every held array go (when ingest has stopped: the memory goes back to the system). */
  release(): void {
    this.free.clear();
    this.held = 0;
  }
}
