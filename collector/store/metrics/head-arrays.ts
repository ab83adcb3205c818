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
export const MIN_POOLED = 1024;

/**
 * A pool no head has taken from for this long is let go (`idle`). Why: after a burst of ingest
 * (a load, a backlog) the pool held its full budget (32 MB by default) for good, beside the
 * queries that followed (issue 28: 2,000 arrays of 2,048 points in the range benchmark's
 * collector, a ninth of its resident size while it answered). Under steady ingest heads take
 * from it every few seconds; a slower round makes its arrays anew, as before the pool.
 */
export const POOL_IDLE_MS = 5_000;

export class HeadArrays {
  private readonly free = new Map<number, Float64Array[]>();
  private held = 0;
  /** Bytes of arrays made since the pool last had room for them (makeRoom), until given back. */
  private owed = 0;
  /** Arrays handed out from the pool and made new (for tests and the figures). */
  reused = 0;
  made = 0;
  /** Takes of pooled sizes since the last `idle` call, and when one was last seen there. */
  private takes = 0;
  private activeAt: number | undefined;

  constructor(readonly maxBytes: number) {}

  /** An array of exactly `capacity` elements; what it holds is stale. */
  take(capacity: number): Float64Array {
    if (capacity < MIN_POOLED) {
      this.made++;
      return new Float64Array(capacity);
    }
    this.takes++;
    const a = this.free.get(capacity)?.pop();
    if (a) {
      this.held -= a.byteLength;
      this.reused++;
      return a;
    }
    this.made++;
    this.makeRoom(capacity * 8);
    return new Float64Array(capacity);
  }

  /**
   * Lets arrays of other capacities go until the arrays made since the pool was last short
   * (`owed`, this one included) would fit when given back. Why:
   * the pool keeps what the heads ask for now. Heads sealed late in a sliced flush round take
   * more points meanwhile and double (2,048 → 4,096 points under the peers benchmark); their
   * large arrays filled the pool at the next seal, no head asked for that size again, and every
   * array of the size the heads did ask for was made new and left as garbage, round after round
   * (32 MB a second at 2 M points/s; issue 28, docs/storage.md).
   */
  private makeRoom(bytes: number): void {
    this.owed += bytes;
    const over = () => this.held + this.owed > this.maxBytes;
    if (!over()) return;
    for (const [capacity, list] of this.free) {
      if (capacity * 8 === bytes) continue;
      while (list.length > 0 && over()) this.held -= list.pop()!.byteLength;
      if (list.length === 0) this.free.delete(capacity);
      if (!over()) return;
    }
  }

  /** Gives an array back; the caller must hold no view of it any more. */
  give(a: Float64Array | undefined): void {
    if (!a || a.length < MIN_POOLED || a.byteOffset !== 0) return;
    this.owed = Math.max(0, this.owed - a.byteLength);
    if (this.held + a.byteLength > this.maxBytes) return;
    let list = this.free.get(a.length);
    if (!list) this.free.set(a.length, (list = []));
    list.push(a);
    this.held += a.byteLength;
  }

  /** Bytes held for reuse. */
  get bytes(): number {
    return this.held;
  }

  /**
   * Called at each maintenance round: lets the held arrays go once no head has taken one of the
   * pooled sizes for POOL_IDLE_MS. Returns whether it did.
   */
  idle(now: number): boolean {
    if (this.takes > 0 || this.activeAt === undefined) {
      this.takes = 0;
      this.activeAt = now;
      return false;
    }
    if (this.held === 0 || now - this.activeAt < POOL_IDLE_MS) return false;
    this.release();
    return true;
  }

  /** Lets every held array go (when ingest has stopped: the memory goes back to the system). */
  release(): void {
    this.free.clear();
    this.held = 0;
    this.owed = 0;
  }
}
