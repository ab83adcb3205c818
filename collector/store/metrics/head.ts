import type { Tags } from "../../../src/metrics/model.ts";
import { type HeadSegments, SEGMENT_MASK, SEGMENT_POINTS, SEGMENT_SHIFT } from "./head-segments.ts";

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

/**
 * The unflushed points of one series, in memory, in fixed-size segments (head-segments.ts):
 * segment k holds points 32k … 32k + 31, its first half their timestamps and its second their
 * values. Appends in timestamp order are O(1) and never copy what the head holds; an
 * out-of-order or repeated timestamp marks the head unsorted and is resolved (stable sort, last
 * write wins) lazily on read or flush. Segments come from, and go back to, the store's pool when
 * one is given: readers copy what they take from a head (columns()) and never keep a view of
 * its segments.
 */
export class SeriesHead {
  /** ⌈length / 32⌉ segments; `last` is the final one (read on every append, without the array). */
  private readonly segs: Float64Array[] = [];
  private last: Float64Array = NONE;
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

  /** A new last segment. */
  private grow(): Float64Array {
    const s = this.pool ? this.pool.take() : new Float64Array(2 * SEGMENT_POINTS);
    this.segs.push(s);
    this.last = s;
    return s;
  }

  /** Timestamp of point i (< length). */
  tsAt(i: number): number {
    return this.segs[i >>> SEGMENT_SHIFT]![i & SEGMENT_MASK]!;
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
    const off = i & SEGMENT_MASK;
    const seg = off === 0 ? this.grow() : this.last;
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
      const off = i & SEGMENT_MASK;
      const seg = off === 0 ? this.grow() : this.last;
      const take = Math.min(SEGMENT_POINTS - off, end - k);
      for (let j = 0; j < take; j++) {
        seg[off + j] = ts[k + j]!;
        seg[SEGMENT_POINTS + off + j] = nums[k + j]!;
      }
      i += take;
      k += take;
    }
    this.lastT = prev;
    this.length = i;
    this.lastSeq = seq;
    return true;
  }

  private set(i: number, v: number | string, tags: Tags | undefined) {
    if (this.strs) this.strs[i] = v as string;
    else this.segs[i >>> SEGMENT_SHIFT]![SEGMENT_POINTS + (i & SEGMENT_MASK)] = v as number;
    if (tags !== undefined || this.tags !== undefined) {
      this.tags ??= new Array(this.length);
      this.tags[i] = tags;
    }
  }

  /** The points' timestamps and (numeric heads) values into the scratch, contiguous. */
  private flatten(): void {
    const n = this.length;
    ensureScratch(n);
    const ts = tsScratch;
    const nums = numsScratch;
    const numeric = this.strs === undefined;
    for (let g = 0, at = 0; at < n; g++, at += SEGMENT_POINTS) {
      const seg = this.segs[g]!;
      const count = Math.min(SEGMENT_POINTS, n - at);
      for (let j = 0; j < count; j++) ts[at + j] = seg[j]!;
      if (numeric) for (let j = 0; j < count; j++) nums[at + j] = seg[SEGMENT_POINTS + j]!;
    }
  }

  /**
   * The points in timestamp order, contiguous: views of a scratch shared by every head, valid
   * until the next columns() or normalize() of any head. A caller that keeps them copies them.
   */
  columns(): { ts: Float64Array; nums: Float64Array | undefined } {
    this.normalize();
    this.flatten();
    const n = this.length;
    return { ts: tsScratch.subarray(0, n), nums: this.strs ? undefined : numsScratch.subarray(0, n) };
  }

  /** Sorts by timestamp and removes duplicates, keeping the latest write of each timestamp. */
  normalize(): void {
    if (this.sorted) return;
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
    // Back into the same segments (the scratch holds the points meanwhile).
    let k = 0;
    for (let j = 0; j < n; j++) {
      const src = order[j]!;
      const t = ts[src]!;
      if (k > 0 && this.tsAt(k - 1) === t) k--; // a later write of the same timestamp replaces it
      const seg = this.segs[k >>> SEGMENT_SHIFT]!;
      seg[k & SEGMENT_MASK] = t;
      if (numeric) seg[SEGMENT_POINTS + (k & SEGMENT_MASK)] = nums[src]!;
      if (nstrs) nstrs[k] = this.strs![src]!;
      if (ntags) ntags[k] = this.tags![src];
      k++;
    }
    // Segments past the points left go back.
    while (this.segs.length > Math.ceil(k / SEGMENT_POINTS)) {
      const s = this.segs.pop()!;
      this.pool?.give(s);
    }
    this.last = this.segs.at(-1) ?? NONE;
    this.strs = nstrs;
    this.tags = ntags;
    this.length = k;
    this.lastT = k > 0 ? this.tsAt(k - 1) : Number.NEGATIVE_INFINITY;
    this.sorted = true;
  }

  /** Empties the head after a seal: its segments go back to the pool, for the heads that fill next. */
  clear(): void {
    this.length = 0;
    this.sorted = true;
    this.lastT = Number.NEGATIVE_INFINITY;
    this.tags = undefined;
    if (this.strs) this.strs = [];
    if (this.pool) for (const s of this.segs) this.pool.give(s);
    this.segs.length = 0;
    this.last = NONE;
  }

  /** Segments held (for tests). */
  get segments(): number {
    return this.segs.length;
  }
}
