import type { Tags } from "../../../src/metrics/model.ts";
import { type HeadArrays, MIN_POOLED } from "./head-arrays.ts";

/** Capacity of a new head; it grows as points arrive (nextCapacity). */
const FIRST_CAPACITY = 16;

/**
 * The capacity after `cap`: half again below MIN_POOLED (in steps of 8), double from there. Why:
 * a series written slowly is sealed at a few dozen points by the heads' budget, and doubling left
 * up to half of each head's arrays unused (50,000 remote-write heads sealed at about 80 points
 * held arrays of 128; issue 28). The pool's sizes (head-arrays.ts) stay powers of two, which
 * heads refill to.
 */
function nextCapacity(cap: number): number {
  if (cap >= MIN_POOLED) return cap * 2;
  return Math.min(MIN_POOLED, Math.ceil((cap * 1.5) / 8) * 8);
}

/** The arrays of an emptied head until its next point (no allocation for a head that stays empty). */
const NONE = new Float64Array(0);

/** The sort order of normalize(), reused (normalize runs to completion before the next one). */
let orderScratch = new Uint32Array(4096);

/**
 * The first `n` elements of `from` into `to`. Without a view of `from` when it is full (a head
 * grows when it is): 50,000 remote-write heads growing together made the views 5 % of the main
 * thread (issue 28).
 */
function copyInto(to: Float64Array, from: Float64Array, n: number): void {
  if (n === from.length) to.set(from);
  else if (n < 64) for (let i = 0; i < n; i++) to[i] = from[i]!;
  else to.set(from.subarray(0, n));
}

/**
 * The unflushed points of one series, in memory. Appends in timestamp order are O(1); an
 * out-of-order or repeated timestamp marks the head unsorted and is resolved (stable sort,
 * last write wins) lazily on read or flush. Its numeric arrays come from, and go back to, the
 * store's pool (head-arrays.ts) when one is given: readers copy what they take from a head and
 * never keep a view of its arrays.
 */
export class SeriesHead {
  ts: Float64Array;
  nums: Float64Array | undefined;
  strs: string[] | undefined;
  tags: (Tags | undefined)[] | undefined;
  length = 0;
  sorted = true;
  /** Log sequence of the newest batch that contributed points. */
  lastSeq = 0;
  /** Wall-clock time when the oldest unflushed point arrived (for age-based flushing). */
  firstArrival = 0;
  /** Capacity the head had when it was last emptied: it refills to about as much. */
  private refill = FIRST_CAPACITY;

  constructor(
    readonly numeric: boolean,
    private readonly pool?: HeadArrays,
    capacity = FIRST_CAPACITY,
  ) {
    this.ts = this.array(capacity);
    if (numeric) this.nums = this.array(capacity);
    else this.strs = [];
  }

  private array(capacity: number): Float64Array {
    return this.pool ? this.pool.take(capacity) : new Float64Array(capacity);
  }

  private grow(min: number) {
    let cap = this.ts.length === 0 ? this.refill : nextCapacity(this.ts.length);
    while (cap < min) cap = nextCapacity(cap);
    const ts = this.array(cap);
    copyInto(ts, this.ts, this.length);
    this.pool?.give(this.ts);
    this.ts = ts;
    if (this.nums) {
      const n = this.array(cap);
      copyInto(n, this.nums, this.length);
      this.pool?.give(this.nums);
      this.nums = n;
    }
  }

  append(t: number, v: number | string, tags: Tags | undefined, seq: number, now: number): void {
    const i = this.length;
    if (i === 0) this.firstArrival = now;
    else if (this.sorted) {
      const last = this.ts[i - 1]!;
      if (t === last) {
        this.set(i - 1, v, tags);
        this.lastSeq = seq;
        return;
      }
      if (t < last) this.sorted = false;
    }
    if (i === this.ts.length) this.grow(i + 1);
    this.ts[i] = t;
    this.length = i + 1;
    this.set(i, v, tags);
    this.lastSeq = seq;
  }

  /**
   * Appends `n` numeric points without tags from columns at `from`, as `append` would, in two
   * copies when their timestamps rise strictly and follow the head's last one (the usual case;
   * a point at a time it was a tenth of the main thread under HTTP ingest, issue 28). Returns
   * false, having appended nothing, when they do not: the caller then appends them one by one.
   */
  appendRun(ts: Float64Array, nums: Float64Array, from: number, n: number, seq: number, now: number): boolean {
    if (!this.nums || this.tags !== undefined || n === 0) return n === 0;
    const i = this.length;
    let prev = i === 0 ? Number.NEGATIVE_INFINITY : this.sorted ? this.ts[i - 1]! : Number.POSITIVE_INFINITY;
    const end = from + n;
    for (let k = from; k < end; k++) {
      const t = ts[k]!;
      if (!(t > prev)) return false;
      prev = t;
    }
    if (i === 0) this.firstArrival = now;
    if (i + n > this.ts.length) this.grow(i + n);
    const hts = this.ts;
    const hnums = this.nums;
    if (n < 64) {
      // A loop beats two views and two copies for the few points a series has in a body.
      for (let k = 0; k < n; k++) {
        hts[i + k] = ts[from + k]!;
        hnums[i + k] = nums[from + k]!;
      }
    } else {
      hts.set(ts.subarray(from, end), i);
      hnums.set(nums.subarray(from, end), i);
    }
    this.length = i + n;
    this.lastSeq = seq;
    return true;
  }

  private set(i: number, v: number | string, tags: Tags | undefined) {
    if (this.nums) this.nums[i] = v as number;
    else this.strs![i] = v as string;
    if (tags !== undefined || this.tags !== undefined) {
      this.tags ??= new Array(this.length);
      this.tags[i] = tags;
    }
  }

  /** Sorts by timestamp and removes duplicates, keeping the latest write of each timestamp. */
  normalize(): void {
    if (this.sorted) return;
    const n = this.length;
    if (orderScratch.length < n) orderScratch = new Uint32Array(n * 2);
    const order = orderScratch.subarray(0, n);
    for (let i = 0; i < n; i++) order[i] = i;
    const ts = this.ts;
    // Stable by insertion index, so that among equal timestamps the last write sorts last.
    order.sort((a, b) => ts[a]! - ts[b]! || a - b);
    // Into arrays of the same capacity (from the pool: the old ones go back to it).
    const nts = this.array(ts.length);
    const nnums = this.nums ? this.array(ts.length) : undefined;
    const nstrs = this.strs ? ([] as string[]) : undefined;
    const ntags = this.tags ? ([] as (Tags | undefined)[]) : undefined;
    let k = 0;
    for (let j = 0; j < n; j++) {
      const src = order[j]!;
      const t = ts[src]!;
      if (k > 0 && nts[k - 1] === t) k--; // a later write of the same timestamp replaces it
      nts[k] = t;
      if (nnums) nnums[k] = this.nums![src]!;
      if (nstrs) nstrs[k] = this.strs![src]!;
      if (ntags) ntags[k] = this.tags![src];
      k++;
    }
    this.pool?.give(this.ts);
    this.pool?.give(this.nums);
    this.ts = nts;
    this.nums = nnums;
    this.strs = nstrs;
    this.tags = ntags;
    this.length = k;
    this.sorted = true;
  }

  /**
   * Empties the head after a seal. `keep`: the series is being written (sealed for its size or the
   * heads' budget, not for its age), so arrays too small for the pool stay with it and it refills
   * them. Why: 50,000 remote-write series sealed at about 80 points each made two new arrays of 128
   * points at their next point, round after round (100 MB of garbage a round, issue 28); a series
   * sealed for its age may have stopped, and lets them go.
   */
  clear(keep = false): void {
    const filled = this.length;
    this.length = 0;
    this.sorted = true;
    this.tags = undefined;
    if (this.strs) this.strs = [];
    if (keep && this.pool && this.ts.length < MIN_POOLED) return;
    if (this.pool && this.ts.length > FIRST_CAPACITY) {
      // The arrays go back to the pool, and the head takes arrays of the capacity it filled from
      // it at its next point: a series that filled its head fills it again, in one step instead
      // of doubling from 16, and one that does not leaves them to the heads that do.
      let cap = FIRST_CAPACITY;
      while (cap < filled) cap = nextCapacity(cap);
      this.refill = cap;
      this.pool.give(this.ts);
      this.pool.give(this.nums);
      this.ts = NONE;
      if (this.nums) this.nums = NONE;
    } else if (this.ts.length > 1024) {
      this.ts = new Float64Array(FIRST_CAPACITY);
      if (this.nums) this.nums = new Float64Array(FIRST_CAPACITY);
    }
  }
}
