/**
 * The fixed-size segments heads keep their points in (head.ts), kept for reuse between seals.
 * Why segments: a head that grew by copying into arrays half again as large left the old ones
 * as garbage, and all heads grow together when a series set is written at one rate: after a
 * restart under remote write from 50,000 series, every head grew twice within a second of the
 * backlog, 110 MB of new arrays and 49 MB of garbage, the collector's peak (issue 28, docs/storage.md
 * "Heads in segments"). A head takes one more segment when its last is full, and a sealed head
 * gives its segments back here for the heads that fill next: under steady ingest no head
 * allocates. Segments given back are only those no reader can still see: reads copy the head's
 * points (head.ts columns()), so a reused segment never shows one series' points in another's
 * answer. Bounded in bytes; what does not fit is left to the garbage collector.
 */

/** Points a segment holds: its first half the timestamps, its second the values. */
export const SEGMENT_POINTS = 32;
export const SEGMENT_SHIFT = 5;
export const SEGMENT_MASK = SEGMENT_POINTS - 1;
const SEGMENT_BYTES = SEGMENT_POINTS * 16;

/**
 * A pool no head has taken from for this long is let go (`idle`). Why: after a burst of ingest
 * (a load, a backlog) the pool held its full budget for good, beside the queries that followed
 * (issue 28: a ninth of the range benchmark's resident size while it answered). Under steady
 * ingest heads take from it every few seconds.
 */
export const POOL_IDLE_MS = 5_000;

export class HeadSegments {
  private readonly free: Float64Array[] = [];
  /** Segments handed out from the pool and made new (for tests and the figures). */
  reused = 0;
  made = 0;
  /** Takes since the last `idle` call, and when one was last seen there. */
  private takes = 0;
  private activeAt: number | undefined;
  private readonly maxSegments: number;

  constructor(maxBytes: number) {
    this.maxSegments = Math.floor(maxBytes / SEGMENT_BYTES);
  }

  /** A segment; what it holds is stale. */
  take(): Float64Array {
    this.takes++;
    const s = this.free.pop();
    if (s) {
      this.reused++;
      return s;
    }
    this.made++;
    return new Float64Array(2 * SEGMENT_POINTS);
  }

  /** Gives a segment back; the caller must hold no view of it any more. */
  give(s: Float64Array): void {
    if (this.free.length < this.maxSegments) this.free.push(s);
  }

  /** Bytes held for reuse. */
  get bytes(): number {
    return this.free.length * SEGMENT_BYTES;
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
    if (this.free.length === 0 || now - this.activeAt < POOL_IDLE_MS) return false;
    this.release();
    return true;
  }

  /** Lets every held segment go (when ingest has stopped: the memory goes back to the system). */
  release(): void {
    this.free.length = 0;
  }
}
