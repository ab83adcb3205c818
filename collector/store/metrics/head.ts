import { corrupt } from "../../../src/codec/errors.ts";
import type { Tags } from "../../../src/metrics/model.ts";
import { copyRun } from "./copy-run.ts";
import { ensureScratch, orderScratch, scratch } from "./head-scratch.ts";
import { HeadState } from "./head-state.ts";
import { type HeadSegments, MAX_SEGMENT, MIN_SEGMENT, segmentFor } from "./head-segments.ts";

/** No segment yet (a head that stays empty holds none). */
const NONE = new Float64Array(0);

/** Capacity below which a head grows by MIN_SEGMENT (slow series: little unused room); from it, by doubling. */
const DOUBLE_FROM = 256;
/** Points a head held when sealed from which it refills into one segment of about that size. */
const REFILL_FROM = 512;

/**
 * A head whose oldest point arrived this long ago when its segment is full moves its points
 * into a point stream (src/codec/point-stream.ts) and appends the next ones there, compressed
 * as they come: it is a slow series' head, which would otherwise hold 16 bytes a point for up
 * to an hour. Its next fills start in the stream. A head filled faster is sealed before it is
 * this old, and pays nothing.
 */
export const FREEZE_AFTER_MS = 10_000;
/** Points a head in the stream may take within FREEZE_AFTER_MS before it is taken for a fast series' (see inStream). */
export const FAST_POINTS = 128;
/**
 * A fill of a streamed head that starts with a run of more points than this goes to segments
 * (a fast series': an HTTP JSON batch, a bulk load); a shorter run stays in the stream, as single
 * points do, until FAST_POINTS says otherwise. Why: a Prometheus backlog sent over 200 shards
 * brings two or three points of every series a request, and each head took a 32-point segment
 * (512 bytes) for them: 48 MB of segments live for 50,000 series (issue 28).
 */
export const STREAM_RUN_MAX = 32;

/**
 * The unflushed points of one series, in memory: a slow series' in a point stream, compressed
 * as they come (see FREEZE_AFTER_MS and inStream), a fast one's in segments (head-segments.ts),
 * each holding the timestamps of a run of points, then their values. A head grows by one
 * segment, never copying what it holds: 32 points at a time up to 256, then doubling up to
 * segments of 4,096. A head sealed at 512 points or more refills into one segment of that
 * size, up to the pool's largestRefill (a steadily written series fills its head again in one
 * piece, which reads and seals take without a copy), or into smaller ones the pool holds when it
 * holds none of that size (head-segments.ts, take). Appends in timestamp order are O(1); an
 * out-of-order or repeated timestamp marks the head unsorted and is resolved (stable sort, last
 * write wins) lazily on read or flush. Segments come from, and go back to, the store's pool when
 * one is given: readers copy what they keep of a head's columns(). The head is its own point
 * stream (it extends PointStream, through HeadState): one object a series instead of two, 418 →
 * 322 bytes a slow series' head with 20 points (issue 28, docs/storage.md thirty-second part).
 * Its fields, HeadState's and the stream's are 18: the engine's object for 18 is 160 bytes, for
 * 19 to 26 224 (docs/storage.md thirty-fourth part).
 */
export class SeriesHead extends HeadState {
  /**
   * Every segment, in order, once there are two or more; undefined while there is one (`last`)
   * or none: most heads of slow series hold one, and the array cost 50–60 bytes a head (issue 28).
   */
  private segs: Float64Array[] | undefined;
  /** The last segment and the index of its first point (read on every append); its capacity is half its length. */
  private last: Float64Array = NONE;
  private lastStart = 0;
  length = 0;
  /** Log sequence of the newest batch that contributed points. */
  lastSeq = 0;
  /** Log sequence of the oldest batch whose points are still in the head (set by the store as it appends to an empty head). */
  firstSeq = 0;
  /** Wall-clock time when the oldest unflushed point arrived (for age-based flushing). */
  firstArrival = 0;

  constructor(
    numeric: boolean,
    private readonly pool?: HeadSegments,
  ) {
    super(numeric);
    // The newest point appended while sorted (the order check of the next one); the stream's
    // last timestamp while in it, the same value.
    this.lastT = Number.NEGATIVE_INFINITY;
  }

  /** Reads what the next append writes to (a number only so that the reads are kept): see read-ahead.ts. */
  readAhead(): number {
    return this.length + (this.inStream ? this.next() : this.last.length);
  }

  /** Segments held. */
  private get segCount(): number {
    return this.segs ? this.segs.length : this.last === NONE ? 0 : 1;
  }

  /** Segment g (< segCount). */
  private seg(g: number): Float64Array {
    return this.segs ? this.segs[g]! : this.last;
  }

  /** Bytes the head holds for its points: its segments' capacity, or its stream's (for tests and figures). */
  get heldBytes(): number {
    return this.inStream ? this.streamBytes : (this.lastStart + (this.last.length >> 1)) * 16;
  }

  /** A new last segment. */
  private growSegment(): Float64Array {
    const total = this.lastStart + (this.last.length >> 1);
    // Doubling: the largest power of two within what the head holds (a segment the pool gave in
    // place of a larger one leaves a total between two).
    const cap = this.last === NONE ? this.refill : total < DOUBLE_FROM ? MIN_SEGMENT : Math.min(MAX_SEGMENT, 2 ** (31 - Math.clz32(total)));
    const s = this.pool ? this.pool.take(cap) : new Float64Array(2 * cap);
    if (this.last !== NONE) (this.segs ??= [this.last]).push(s);
    this.last = s;
    this.lastStart = total;
    return s;
  }

  /** Whether a head whose segments are full goes into the stream now (a numeric head without tags, in order, old enough). */
  private streamable(tags: Tags | undefined, now: number): boolean {
    return !this.hasExtra && tags === undefined && this.sorted && now - this.firstArrival >= FREEZE_AFTER_MS;
  }

  /**
   * Moves every point from the segments into the stream and gives the segments back; false,
   * leaving them where they were, when their timestamps cannot be streamed.
   */
  private toStream(): boolean {
    this.clearStream();
    const n = this.length;
    for (let g = 0, at = 0; at < n; g++) {
      const seg = this.seg(g);
      const cap = seg.length >> 1;
      const count = Math.min(cap, n - at);
      for (let j = 0; j < count; j++) {
        if (!this.push(seg[j]!, seg[cap + j]!)) {
          this.clearStream();
          return false;
        }
      }
      at += count;
    }
    this.releaseSegments();
    this.lastStart = 0;
    this.inStream = true;
    return true;
  }

  /** Gives every segment back to the pool and holds none. */
  private releaseSegments(): void {
    if (this.pool) {
      if (this.segs) for (const s of this.segs) this.pool.give(s);
      else if (this.last !== NONE) this.pool.give(this.last);
    }
    this.segs = undefined;
    this.last = NONE;
  }

  /**
   * Moves the points from the stream back into segments, before they are rewritten in place
   * (an out-of-order point to sort in, a repeated timestamp's new value, tags) or when one
   * cannot be streamed: rare, as a streamed head is one written in order.
   */
  private thaw(): void {
    const n = this.length;
    ensureScratch(n);
    const { ts, nums } = scratch;
    this.decodeAll(ts, nums);
    this.clearStream();
    this.inStream = false;
    this.lastStart = 0;
    for (let at = 0; at < n; ) {
      const seg = this.growSegment();
      const cap = seg.length >> 1;
      const take = Math.min(cap, n - at);
      copyRun(seg, 0, ts, at, take);
      copyRun(seg, cap, nums, at, take);
      at += take;
    }
  }

  append(t: number, v: number | string, tags: Tags | undefined, seq: number, now: number): void {
    const i = this.length;
    if (i === 0) this.firstArrival = now;
    else if (this.sorted) {
      const last = this.lastT;
      if (t === last) {
        this.set(i - 1, v, tags);
        this.lastSeq = seq;
        return;
      }
      if (t < last) this.sorted = false;
    }
    if (this.inStream) {
      if (this.sorted && tags === undefined && this.push(t, v as number)) {
        this.streamed(t, i, seq, now);
        return;
      }
      this.thaw();
    }
    let off = i - this.lastStart;
    let seg = this.last;
    if (off === seg.length >> 1) {
      if (i > 0 && this.streamable(tags, now) && this.toStream()) {
        if (this.push(t, v as number)) {
          this.streamed(t, i, seq, now);
          return;
        }
        this.thaw();
        off = i - this.lastStart;
        seg = this.last;
      }
      if (off === seg.length >> 1) {
        seg = this.growSegment();
        off = 0;
      }
    }
    seg[off] = t;
    this.lastT = t;
    this.length = i + 1;
    this.set(i, v, tags);
    this.lastSeq = seq;
  }

  /** Records point i, at t, appended to the stream. */
  private streamed(t: number, i: number, seq: number, now: number): void {
    this.lastT = t;
    this.length = i + 1;
    this.lastSeq = seq;
    if (this.fast(now)) this.thaw();
  }

  /** Whether a head in the stream is filling too fast for it: its points then go to segments. */
  private fast(now: number): boolean {
    return this.length >= FAST_POINTS && now - this.firstArrival < FREEZE_AFTER_MS;
  }

  /**
   * Appends `n` numeric points without tags from columns at `from`, as `append` would, when
   * their timestamps rise strictly and follow the head's last one (the usual case; a point at a
   * time it was a tenth of the main thread under HTTP ingest, issue 28). Returns false, having
   * appended nothing, when they do not: the caller then appends them one by one.
   */
  appendRun(ts: Float64Array, nums: Float64Array, from: number, n: number, seq: number, now: number): boolean {
    if (this.hasExtra || n === 0) return n === 0;
    let i = this.length;
    let prev = i === 0 ? Number.NEGATIVE_INFINITY : this.sorted ? this.lastT : Number.POSITIVE_INFINITY;
    const end = from + n;
    for (let k = from; k < end; k++) {
      const t = ts[k]!;
      if (!(t > prev)) return false;
      prev = t;
    }
    if (i === 0) {
      this.firstArrival = now;
      // A fill that starts with a long run of points is a fast series': into segments.
      if (n > STREAM_RUN_MAX) this.inStream = false;
    }
    // Once a point could not be streamed, the rest of the run stays in segments.
    let streamOk = true;
    for (let k = from; k < end; ) {
      if (this.inStream) {
        while (k < end && this.push(ts[k]!, nums[k]!)) {
          k++;
          i++;
        }
        this.length = i;
        if (k === end) {
          if (this.fast(now)) this.thaw();
          break;
        }
        this.thaw();
        streamOk = false;
      }
      let off = i - this.lastStart;
      let seg = this.last;
      if (off === seg.length >> 1) {
        if (streamOk && i > 0 && this.streamable(undefined, now)) {
          this.length = i;
          if (this.toStream()) continue;
        }
        seg = this.growSegment();
        off = 0;
      }
      const cap = seg.length >> 1;
      const take = Math.min(cap - off, end - k);
      copyRun(seg, off, ts, k, take);
      copyRun(seg, cap + off, nums, k, take);
      i += take;
      k += take;
    }
    this.lastT = prev;
    this.length = i;
    this.lastSeq = seq;
    return true;
  }

  /** Sets point i's value (and tags); i < length. */
  private set(i: number, v: number | string, tags: Tags | undefined) {
    if (this.inStream) this.thaw();
    const strs = this.strs;
    if (strs) strs[i] = v as string;
    else {
      // The point is in the last segment but for a repeat of the first point of it.
      let g = this.segCount - 1;
      let start = this.lastStart;
      while (i < start) start -= this.seg(--g).length >> 1;
      const seg = this.seg(g);
      seg[(seg.length >> 1) + i - start] = v as number;
    }
    if (tags !== undefined || this.tags !== undefined) {
      let all = this.tags;
      if (all === undefined) this.setExtra(strs, (all = new Array(this.length)));
      all[i] = tags;
    }
  }

  /**
   * The stream's points into ts and nums (room for the head's length). The stream does not count
   * its points: one that decodes to another number than the head's length is refused rather than
   * cut short or padded.
   */
  private decodeAll(ts: Float64Array, nums: Float64Array): void {
    const n = this.length;
    if (n > 0 && this.decodeStream(ts, nums, 0) !== n) corrupt(`a head's stream does not hold its ${n} points`);
  }

  /** The points' timestamps and (numeric heads) values into the scratch, contiguous. */
  private flatten(): void {
    const n = this.length;
    ensureScratch(n);
    const { ts, nums } = scratch;
    if (this.inStream) {
      this.decodeAll(ts, nums);
      return;
    }
    const numeric = this.strs === undefined;
    for (let g = 0, at = 0; at < n; g++) {
      const seg = this.seg(g);
      const cap = seg.length >> 1;
      const count = Math.min(cap, n - at);
      copyRun(ts, at, seg, 0, count);
      if (numeric) copyRun(nums, at, seg, cap, count);
      at += cap;
    }
  }

  /**
   * The points in timestamp order, contiguous: views of the head's one segment, or of a scratch
   * shared by every head, valid until the head changes or the next columns() or normalize() of
   * any head. A caller that keeps them copies them.
   */
  columns(): { ts: Float64Array; nums: Float64Array | undefined } {
    this.normalize();
    const n = this.length;
    if (this.segs === undefined && !this.inStream) {
      const seg = this.last;
      const cap = seg.length >> 1;
      return { ts: seg.subarray(0, n), nums: this.strs ? undefined : seg.subarray(cap, cap + n) };
    }
    this.flatten();
    return { ts: scratch.ts.subarray(0, n), nums: this.strs ? undefined : scratch.nums.subarray(0, n) };
  }

  /** Sorts by timestamp and removes duplicates, keeping the latest write of each timestamp. */
  normalize(): void {
    if (this.sorted) return;
    if (this.inStream) this.thaw();
    const n = this.length;
    this.flatten();
    const { ts, nums } = scratch;
    const order = orderScratch(n);
    for (let i = 0; i < n; i++) order[i] = i;
    // Stable by insertion index, so that among equal timestamps the last write sorts last.
    order.sort((a, b) => ts[a]! - ts[b]! || a - b);
    const strs = this.strs;
    const tags = this.tags;
    const numeric = strs === undefined;
    const nstrs = strs ? ([] as string[]) : undefined;
    const ntags = tags ? ([] as (Tags | undefined)[]) : undefined;
    // Back into the same segments, in order (the scratch holds the points meanwhile); a later
    // write of a timestamp replaces the earlier one in its slot.
    let g = 0;
    let seg = this.seg(0);
    let cap = seg.length >> 1;
    let off = 0;
    let start = 0;
    let prevSeg = seg;
    let prevSlot = 0;
    let k = 0;
    for (let j = 0; j < n; j++) {
      const src = order[j]!;
      const t = ts[src]!;
      if (k > 0 && prevSeg[prevSlot] === t) {
        if (numeric) prevSeg[(prevSeg.length >> 1) + prevSlot] = nums[src]!;
        if (nstrs) nstrs[k - 1] = strs![src]!;
        if (ntags) ntags[k - 1] = tags![src];
        continue;
      }
      if (off === cap) {
        start += cap;
        seg = this.seg(++g);
        cap = seg.length >> 1;
        off = 0;
      }
      seg[off] = t;
      if (numeric) seg[cap + off] = nums[src]!;
      if (nstrs) nstrs[k] = strs![src]!;
      if (ntags) ntags[k] = tags![src];
      prevSeg = seg;
      prevSlot = off;
      off++;
      k++;
    }
    // Segments past the points left go back.
    if (this.segs) {
      while (this.segs.length > g + 1) {
        const s = this.segs.pop()!;
        this.pool?.give(s);
      }
      if (this.segs.length === 1) this.segs = undefined;
    }
    this.last = seg;
    this.lastStart = start;
    this.setExtra(nstrs, ntags);
    this.length = k;
    this.lastT = seg[off - 1]!;
    this.sorted = true;
  }

  /** Empties the head after a seal: its segments go back to the pool, for the heads that fill next. */
  clear(): void {
    const filled = this.length;
    this.length = 0;
    this.sorted = true;
    this.lastT = Number.NEGATIVE_INFINITY;
    this.setExtra(this.strs ? [] : undefined, undefined);
    this.releaseSegments();
    this.lastStart = 0;
    // A streamed head is a slow series': its next points go to the stream from the first.
    if (this.inStream) this.clearStream();
    this.refill = filled >= REFILL_FROM && !this.inStream ? segmentFor(filled, this.pool?.largestRefill) : MIN_SEGMENT;
  }

  /** Segments held and their capacities (for tests). */
  get segmentCapacities(): number[] {
    return this.segs ? this.segs.map((s) => s.length >> 1) : this.last === NONE ? [] : [this.last.length >> 1];
  }
}
