import { decodePointsInto, encodePoints } from "../../../src/codec/index.ts";
import type { Tags } from "../../../src/metrics/model.ts";
import { type HeadSegments, MAX_SEGMENT, MIN_SEGMENT } from "./head-segments.ts";

/** The sort order of normalize(), reused (normalize runs to completion before the next one). */
let orderScratch = new Uint32Array(4096);
/** The contiguous copy columns() and normalize() make, reused: valid until the next call of either. */
let tsScratch = new Float64Array(4096);
let numsScratch = new Float64Array(4096);

function ensureScratch(n: number): void {
  if (tsScratch.length >= n) return;
  const size = Math.max(n, tsScratch.length * 2);
  tsScratch = new Float64Array(size);
  numsScratch = new Float64Array(size);
}

/** No segment yet (a head that stays empty holds none). */
const NONE = new Float64Array(0);

/** Capacity below which a head grows by MIN_SEGMENT (slow series: little unused room); from it, by doubling. */
const DOUBLE_FROM = 256;
/** Points a head held when sealed from which it refills into one segment of about that size. */
const REFILL_FROM = 512;

/** Copies below this many points go by a loop rather than two views and a copy. */
const COPY_LOOP = 64;

/**
 * A head whose oldest point arrived this long ago compresses its full segments as it grows
 * (frozen blocks): it is a slow series' head, which would otherwise hold 16 bytes a point for
 * up to an hour. A head filled faster is sealed before it is this old, and pays nothing.
 */
export const FREEZE_AFTER_MS = 10_000;

/**
 * The unflushed points of one series, in memory, in segments (head-segments.ts): each holds the
 * timestamps of a run of points, then their values. A head grows by one segment, never copying
 * what it holds: 32 points at a time up to 256, then doubling up to segments of 4,096. A head
 * sealed at 512 points or more refills into one segment of that size (a steadily written series
 * fills its head again in one piece, which reads and seals take without a copy). Appends in
 * timestamp order are O(1); an out-of-order or repeated timestamp marks the head unsorted and is
 * resolved (stable sort, last write wins) lazily on read or flush. Segments come from, and go
 * back to, the store's pool when one is given: readers copy what they keep of a head's columns().
 */
export class SeriesHead {
  /**
   * Every segment, in order, once there are two or more; undefined while there is one (`last`)
   * or none: most heads of slow series hold one, and the array cost 50–60 bytes a head (issue 28).
   */
  private segs: Float64Array[] | undefined;
  /** The last segment and the index of its first point (read on every append); its capacity is half its length. */
  private last: Float64Array = NONE;
  private lastStart = 0;
  /** Capacity of the first segment of the next fill. */
  private refill = MIN_SEGMENT;
  /** The head's first points, encoded (point codec), in order; undefined while none. */
  private frozen: Uint8Array[] | undefined;
  /** Points in the frozen blocks: the segments hold those from this index on. */
  private frozenCount = 0;
  strs: string[] | undefined;
  tags: (Tags | undefined)[] | undefined;
  length = 0;
  sorted = true;
  /** Timestamp of the newest point appended while sorted (the order check of the next one). */
  private lastT = Number.NEGATIVE_INFINITY;
  /** Log sequence of the newest batch that contributed points. */
  lastSeq = 0;
  /** Wall-clock time when the oldest unflushed point arrived (for age-based flushing). */
  firstArrival = 0;

  constructor(
    readonly numeric: boolean,
    private readonly pool?: HeadSegments,
  ) {
    if (!numeric) this.strs = [];
  }

  /** Segments held. */
  private get segCount(): number {
    return this.segs ? this.segs.length : this.last === NONE ? 0 : 1;
  }

  /** Segment g (< segCount). */
  private seg(g: number): Float64Array {
    return this.segs ? this.segs[g]! : this.last;
  }

  /** Bytes the head holds for its points: its segments' capacity and its frozen blocks (for tests and figures). */
  get bytes(): number {
    let frozen = 0;
    for (const block of this.frozen ?? []) frozen += block.byteLength;
    return frozen + (this.lastStart + (this.last.length >> 1) - this.frozenCount) * 16;
  }

  /** A new last segment; `now` decides whether the full ones are frozen first (−Infinity: never). */
  private grow(now: number): Float64Array {
    const total = this.lastStart + (this.last.length >> 1);
    const raw = total - this.frozenCount;
    const fresh = this.last === NONE && this.frozenCount === 0;
    const cap = fresh ? this.refill : raw < DOUBLE_FROM ? MIN_SEGMENT : Math.min(MAX_SEGMENT, raw);
    if (!fresh && this.strs === undefined && this.tags === undefined && this.sorted && now - this.firstArrival >= FREEZE_AFTER_MS) this.freeze(total);
    const s = this.pool ? this.pool.take(cap) : new Float64Array(2 * cap);
    if (this.last !== NONE) (this.segs ??= [this.last]).push(s);
    this.last = s;
    this.lastStart = total;
    return s;
  }

  /**
   * Encodes the segments' points (all full: `total` is the head's length) into one frozen block
   * (of its exact size) and gives the segments back.
   */
  private freeze(total: number): void {
    // Through the scratch, copied by a loop for a slow head's short segments (copyRaw): a view of
    // a small segment would move its storage out of the engine's heap into a separate buffer,
    // about 600 bytes more a segment (measured).
    ensureScratch(total);
    this.copyRaw(tsScratch, numsScratch, this.frozenCount, total);
    const encoded = encodePoints({ ts: tsScratch.subarray(this.frozenCount, total), nums: numsScratch.subarray(this.frozenCount, total) });
    // Copied for the same reason: the encoder took a view of its block (the checksum's).
    const block = new Uint8Array(encoded.length);
    block.set(encoded);
    (this.frozen ??= []).push(block);
    this.frozenCount = total;
    this.releaseSegments();
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

  /** Drops the frozen blocks (their points are elsewhere now, or cleared). */
  private dropFrozen(): void {
    this.frozen = undefined;
    this.frozenCount = 0;
  }

  /**
   * Turns the frozen blocks back into segments, before the points are rewritten in place (an
   * out-of-order point to sort in, a repeated timestamp's new value): rare, as a frozen head is
   * one written in order.
   */
  private thaw(): void {
    const n = this.length;
    this.flatten();
    this.releaseSegments();
    this.dropFrozen();
    this.lastStart = 0;
    for (let at = 0; at < n; ) {
      const seg = this.grow(Number.NEGATIVE_INFINITY);
      const cap = seg.length >> 1;
      const take = Math.min(cap, n - at);
      seg.set(tsScratch.subarray(at, at + take), 0);
      seg.set(numsScratch.subarray(at, at + take), cap);
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
    let off = i - this.lastStart;
    let seg = this.last;
    if (off === seg.length >> 1) {
      seg = this.grow(now);
      off = 0;
    }
    seg[off] = t;
    this.lastT = t;
    this.length = i + 1;
    this.set(i, v, tags);
    this.lastSeq = seq;
  }

  /**
   * Appends `n` numeric points without tags from columns at `from`, as `append` would, when
   * their timestamps rise strictly and follow the head's last one (the usual case; a point at a
   * time it was a tenth of the main thread under HTTP ingest, issue 28). Returns false, having
   * appended nothing, when they do not: the caller then appends them one by one.
   */
  appendRun(ts: Float64Array, nums: Float64Array, from: number, n: number, seq: number, now: number): boolean {
    if (this.strs || this.tags !== undefined || n === 0) return n === 0;
    let i = this.length;
    let prev = i === 0 ? Number.NEGATIVE_INFINITY : this.sorted ? this.lastT : Number.POSITIVE_INFINITY;
    const end = from + n;
    for (let k = from; k < end; k++) {
      const t = ts[k]!;
      if (!(t > prev)) return false;
      prev = t;
    }
    if (i === 0) this.firstArrival = now;
    for (let k = from; k < end; ) {
      let off = i - this.lastStart;
      let seg = this.last;
      if (off === seg.length >> 1) {
        seg = this.grow(now);
        off = 0;
      }
      const cap = seg.length >> 1;
      const take = Math.min(cap - off, end - k);
      if (take < COPY_LOOP) {
        for (let j = 0; j < take; j++) {
          seg[off + j] = ts[k + j]!;
          seg[cap + off + j] = nums[k + j]!;
        }
      } else {
        seg.set(ts.subarray(k, k + take), off);
        seg.set(nums.subarray(k, k + take), cap + off);
      }
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
    if (i < this.frozenCount) this.thaw();
    if (this.strs) this.strs[i] = v as string;
    else {
      // The point is in the last segment but for a repeat of the first point of it.
      let g = this.segCount - 1;
      let start = this.lastStart;
      while (i < start) start -= this.seg(--g).length >> 1;
      const seg = this.seg(g);
      seg[(seg.length >> 1) + i - start] = v as number;
    }
    if (tags !== undefined || this.tags !== undefined) {
      this.tags ??= new Array(this.length);
      this.tags[i] = tags;
    }
  }

  /** The points' timestamps and (numeric heads) values into the scratch, contiguous. */
  private flatten(): void {
    const n = this.length;
    ensureScratch(n);
    let at = 0;
    if (this.frozen) for (const block of this.frozen) at += decodePointsInto(block, tsScratch, numsScratch, at).points;
    this.copyRaw(tsScratch, numsScratch, at, n);
  }

  /** The segments' points, from index `at` (the first not frozen) to `n`, into ts and nums at the same indexes. */
  private copyRaw(ts: Float64Array, nums: Float64Array, at: number, n: number): void {
    const numeric = this.strs === undefined;
    for (let g = 0; at < n; g++) {
      const seg = this.seg(g);
      const cap = seg.length >> 1;
      const count = Math.min(cap, n - at);
      if (count < COPY_LOOP) {
        for (let j = 0; j < count; j++) ts[at + j] = seg[j]!;
        if (numeric) for (let j = 0; j < count; j++) nums[at + j] = seg[cap + j]!;
      } else {
        ts.set(seg.subarray(0, count), at);
        if (numeric) nums.set(seg.subarray(cap, cap + count), at);
      }
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
    if (this.segs === undefined && this.frozen === undefined) {
      const seg = this.last;
      const cap = seg.length >> 1;
      return { ts: seg.subarray(0, n), nums: this.strs ? undefined : seg.subarray(cap, cap + n) };
    }
    this.flatten();
    return { ts: tsScratch.subarray(0, n), nums: this.strs ? undefined : numsScratch.subarray(0, n) };
  }

  /** Sorts by timestamp and removes duplicates, keeping the latest write of each timestamp. */
  normalize(): void {
    if (this.sorted) return;
    if (this.frozen) this.thaw();
    const n = this.length;
    this.flatten();
    const ts = tsScratch;
    const nums = numsScratch;
    if (orderScratch.length < n) orderScratch = new Uint32Array(n * 2);
    const order = orderScratch.subarray(0, n);
    for (let i = 0; i < n; i++) order[i] = i;
    // Stable by insertion index, so that among equal timestamps the last write sorts last.
    order.sort((a, b) => ts[a]! - ts[b]! || a - b);
    const numeric = this.strs === undefined;
    const nstrs = this.strs ? ([] as string[]) : undefined;
    const ntags = this.tags ? ([] as (Tags | undefined)[]) : undefined;
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
        if (nstrs) nstrs[k - 1] = this.strs![src]!;
        if (ntags) ntags[k - 1] = this.tags![src];
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
      if (nstrs) nstrs[k] = this.strs![src]!;
      if (ntags) ntags[k] = this.tags![src];
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
    this.strs = nstrs;
    this.tags = ntags;
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
    this.tags = undefined;
    if (this.strs) this.strs = [];
    this.releaseSegments();
    this.lastStart = 0;
    // A head that froze is a slow series': it refills a small segment at a time.
    const froze = this.frozen !== undefined;
    this.dropFrozen();
    let cap = MIN_SEGMENT;
    if (filled >= REFILL_FROM && !froze) while (cap < filled && cap < MAX_SEGMENT) cap *= 2;
    this.refill = cap;
  }

  /** Segments held and their capacities (for tests). */
  get segmentCapacities(): number[] {
    return this.segs ? this.segs.map((s) => s.length >> 1) : this.last === NONE ? [] : [this.last.length >> 1];
  }
}
