/**
 * The segments heads keep their points in (head.ts), kept for reuse between seals. A segment is
 * one Float64Array of 2 × capacity: its first half timestamps, its second values; capacities are
 * powers of two from 32 to 4,096 points. Why segments: a head that grew by copying into arrays
 * half again as large left the old ones as garbage, and all heads of a series set grow together
 * when it is written at one rate: after a restart under remote write from 50,000 series, every
 * head grew twice within a second of the backlog, 110 MB of new arrays and 49 MB of garbage, the
 * collector's peak (issue 28, docs/storage.md "Heads in segments"). A head takes one more segment
 * when its last is full, and a sealed head gives its segments back here for the heads that fill
 * next: under steady ingest no head allocates. Segments given back are only those no reader can
 * still see: reads copy the head's points, so a reused segment never shows one series' points
 * in another's answer. Bounded in bytes; what does not fit is left to the garbage collector.
 */

/** The smallest segment: what a new head, or a slow one, takes. */
export const MIN_SEGMENT = 32;
/** The largest: a head past it grows by segments of this size. */
export const MAX_SEGMENT = 4096;
/**
 * The smallest segment a take of a larger one is given instead of new memory. Why: a fast head's
 * first fill grows through segments of 256, 512 and 1,024 points, its refills take one of 2,048,
 * and the pool, given back the first fills' segments, held none of those: every series of a
 * bulk load made 64 KB of segments where 32 KB circulate (issue 28, docs/storage.md
 * twenty-eighth part). Slow heads' segments of 32 points are not taken for larger ones.
 */
const FALLBACK_MIN = 256;

/** The smallest segment capacity that holds `points`, from MIN_SEGMENT up to `largest`. */
export function segmentFor(points: number, largest = MAX_SEGMENT): number {
  let cap = MIN_SEGMENT;
  while (cap < points && cap < largest) cap *= 2;
  return cap;
}

/**
 * A pool no head has taken from for this long is let go (`idle`). Why: after a burst of ingest
 * (a load, a backlog) the pool held its full budget for good, beside the queries that followed
 * (issue 28: a ninth of the range benchmark's resident size while it answered). Under steady
 * ingest heads take from it every few seconds.
 */
export const POOL_IDLE_MS = 5_000;

export class HeadSegments {
  /** Free segments by capacity. */
  private readonly free = new Map<number, Float64Array[]>();
  private held = 0;
  /** Bytes of segments made since the pool last had room for them (makeRoom), until given back. */
  private owed = 0;
  /** Segments handed out from the pool and made new (for tests and the figures). */
  reused = 0;
  made = 0;
  /** Takes since the last `idle` call, and when one was last seen there. */
  private takes = 0;
  private activeAt: number | undefined;

  /**
   * The largest segment a sealed head refills into: the power of two at or above `sealedWithin`
   * (the points a head is sealed before it holds; the store passes 2 × chunkPoints), at most
   * MAX_SEGMENT. Why: a head the flush reached a little late (a bulk load outruns it) held a few
   * points more than the seal's bound and refilled into a segment twice as large, which the pool,
   * given back the smaller ones, never had (issue 28, docs/storage.md twenty-eighth part).
   */
  readonly largestRefill: number;

  constructor(
    readonly maxBytes: number,
    sealedWithin = MAX_SEGMENT,
  ) {
    this.largestRefill = segmentFor(sealedWithin);
  }

  /**
   * A segment for `capacity` points (a power of two, MIN_SEGMENT … MAX_SEGMENT), or a smaller one
   * the pool holds when it holds none of that capacity; what it holds is stale.
   */
  take(capacity: number): Float64Array {
    this.takes++;
    let s = this.free.get(capacity)?.pop();
    // None of that capacity held: a smaller one (down to an eighth, not below FALLBACK_MIN)
    // rather than new memory; the head grows on from it (head.ts, grow).
    for (let c = capacity >> 1; s === undefined && c >= FALLBACK_MIN && c >= capacity >> 3; c >>= 1) s = this.free.get(c)?.pop();
    if (s) {
      this.held -= s.byteLength;
      this.reused++;
      return s;
    }
    this.made++;
    this.makeRoom(capacity * 16);
    return new Float64Array(2 * capacity);
  }

  /**
   * A miss lets segments of other capacities go until those made since the pool was last short
   * (`owed`, this one included) would fit when given back: the pool keeps what the heads ask for
   * now (the arrays' pool before it filled with a size no head asked for again, and every array
   * of the size they did ask for was made new, round after round; issue 28).
   */
  private makeRoom(bytes: number): void {
    this.owed += bytes;
    const over = () => this.held + this.owed > this.maxBytes;
    if (!over()) return;
    for (const [capacity, list] of this.free) {
      if (capacity * 16 === bytes) continue;
      while (list.length > 0 && over()) this.held -= list.pop()!.byteLength;
      if (!over()) return;
    }
  }

  /** Gives a segment back; the caller must hold no view of it any more. */
  give(s: Float64Array): void {
    this.owed = Math.max(0, this.owed - s.byteLength);
    if (this.held + s.byteLength > this.maxBytes) return;
    const capacity = s.length / 2;
    let list = this.free.get(capacity);
    if (!list) this.free.set(capacity, (list = []));
    list.push(s);
    this.held += s.byteLength;
  }

  /** Bytes held for reuse. */
  get bytes(): number {
    return this.held;
  }

  /**
   * Called at each maintenance round: lets the held segments go once no head has taken one for
   * POOL_IDLE_MS. Returns whether it did.
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

  /** Lets every held segment go (when ingest has stopped: the memory goes back to the system). */
  release(): void {
    this.free.clear();
    this.held = 0;
    this.owed = 0;
  }
}
