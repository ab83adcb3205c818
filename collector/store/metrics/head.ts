import type { Tags } from "../../../src/metrics/model.ts";

/**
 * The unflushed points of one series, in memory. Appends in timestamp order are O(1); an
 * out-of-order or repeated timestamp marks the head unsorted and is resolved (stable sort,
 * last write wins) lazily on read or flush.
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

  constructor(readonly numeric: boolean, capacity = 16) {
    this.ts = new Float64Array(capacity);
    if (numeric) this.nums = new Float64Array(capacity);
    else this.strs = [];
  }

  private grow(min: number) {
    let cap = this.ts.length * 2;
    while (cap < min) cap *= 2;
    const ts = new Float64Array(cap);
    ts.set(this.ts.subarray(0, this.length));
    this.ts = ts;
    if (this.nums) {
      const n = new Float64Array(cap);
      n.set(this.nums.subarray(0, this.length));
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
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const ts = this.ts;
    // Stable by insertion index, so that among equal timestamps the last write sorts last.
    order.sort((a, b) => ts[a]! - ts[b]! || a - b);
    const nts = new Float64Array(Math.max(16, n));
    const nnums = this.nums ? new Float64Array(nts.length) : undefined;
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
    this.ts = nts;
    this.nums = nnums;
    this.strs = nstrs;
    this.tags = ntags;
    this.length = k;
    this.sorted = true;
  }

  clear(): void {
    this.length = 0;
    this.sorted = true;
    this.tags = undefined;
    if (this.strs) this.strs = [];
    if (this.ts.length > 1024) {
      this.ts = new Float64Array(16);
      if (this.nums) this.nums = new Float64Array(16);
    }
  }
}
