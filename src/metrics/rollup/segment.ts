/**
 * Summaries of a run of consecutive points, which compose: the summary of points P followed by
 * points Q (all of Q later than all of P) is P's summary with Q's appended. Rollup rows are
 * such summaries (rows.ts), the roller builds coarser buckets by appending finer ones, and a
 * query appends the rows (and raw points) of a bucket or window to answer it.
 */
import { isStaleMarker } from "../../prometheus/staleness.ts";
import type { QuantileSketch } from "../quantile-sketch.ts";
import type { AvailabilityRows, NumericRows, SketchColumns } from "./rows.ts";

/** Adds the sketch bins of bucket j to `into`. */
export function addSketchBins(into: QuantileSketch, s: SketchColumns, j: number): void {
  let b = s.at[j]!;
  let k = s.pf[j]!;
  for (let i = 0, pn = s.pn[j]!; i < pn; i++, b++) {
    k += i === 0 ? 0 : s.gaps[b]! + 1;
    into.addBin(1, k, s.counts[b]!);
  }
  k = s.nf[j]!;
  for (let i = 0, nn = s.nn[j]!; i < nn; i++, b++) {
    k += i === 0 ? 0 : s.gaps[b]! + 1;
    into.addBin(-1, k, s.counts[b]!);
  }
  into.addSpecial(s.zero[j]!, s.pinf[j]!, s.ninf[j]!);
}

/**
 * Gauge and counter points in time order: count, min, max, sum, first and last, the counter
 * resets (value before each drop, summed, as Prometheus' rate adds them), and optionally the
 * per-minute rates of consecutive points with resets left out (Hawkular's counter rates) and
 * sketches of the values and of those rates. Staleness markers (every NaN stored is one:
 * src/prometheus/staleness.ts) are no points: they are left out, as the Hawkular reads and
 * PromQL's range vectors leave them out.
 */
export class NumSeg {
  n = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;
  sum = 0;
  firstT = Number.NaN;
  firstV = Number.NaN;
  lastT = Number.NaN;
  lastV = Number.NaN;
  rs = 0;
  rn = 0;
  rmin = Number.POSITIVE_INFINITY;
  rmax = Number.NEGATIVE_INFINITY;
  rsum = 0;

  constructor(
    /** Track the per-minute rates of consecutive points (counters). */
    readonly rates: boolean,
    readonly sketch?: QuantileSketch,
    readonly rateSketch?: QuantileSketch,
  ) {}

  clear(): void {
    this.n = this.sum = this.rs = this.rn = this.rsum = 0;
    this.min = this.rmin = Number.POSITIVE_INFINITY;
    this.max = this.rmax = Number.NEGATIVE_INFINITY;
    this.firstT = this.firstV = this.lastT = this.lastV = Number.NaN;
    this.sketch?.clear();
    this.rateSketch?.clear();
  }

  /** The pair (last point so far, a point at t of value v): a reset, and a counter rate. */
  private cross(t: number, v: number): void {
    const prev = this.lastV;
    if (v < prev) this.rs += prev;
    else if (this.rates) this.addRate((60_000 * (v - prev)) / (t - this.lastT));
  }

  /** Counts one per-minute rate (a pair of points formed outside this segment, e.g. across buckets). */
  addRate(r: number): void {
    this.rn++;
    this.rsum += r;
    if (r < this.rmin) this.rmin = r;
    if (r > this.rmax) this.rmax = r;
    this.rateSketch?.add(r);
  }

  /** Appends a point later than every point so far. */
  addPoint(t: number, v: number): void {
    if (isStaleMarker(v)) return;
    if (this.n === 0) {
      this.firstT = t;
      this.firstV = v;
    } else this.cross(t, v);
    this.n++;
    this.sum += v;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
    this.lastT = t;
    this.lastV = v;
    this.sketch?.add(v);
  }

  /** Appends the edge point of row j (at its bucket start `a`), if it has one. */
  appendEdge(r: NumericRows, j: number, a: number): void {
    if (r.edge[j]) this.addPoint(a, r.edgeV[j]!);
  }

  /** Appends the interior of row j: its points are later than every point so far. */
  appendInterior(r: NumericRows, j: number): void {
    const c = r.cnt[j]!;
    if (c === 0) return;
    if (this.n === 0) {
      this.firstT = r.firstT[j]!;
      this.firstV = r.firstV[j]!;
    } else this.cross(r.firstT[j]!, r.firstV[j]!);
    this.n += c;
    this.sum += r.sum[j]!;
    if (r.min[j]! < this.min) this.min = r.min[j]!;
    if (r.max[j]! > this.max) this.max = r.max[j]!;
    this.lastT = r.lastT[j]!;
    this.lastV = r.lastV[j]!;
    this.rs += r.rs[j]!;
    if (this.rates && r.rn) {
      this.rn += r.rn[j]!;
      this.rsum += r.rsum![j]!;
      if (r.rn[j]! > 0) {
        if (r.rmin![j]! < this.rmin) this.rmin = r.rmin![j]!;
        if (r.rmax![j]! > this.rmax) this.rmax = r.rmax![j]!;
      }
      if (this.rateSketch && r.rateSketch) addSketchBins(this.rateSketch, r.rateSketch, j);
    }
    if (this.sketch) addSketchBins(this.sketch, r.sketch, j);
  }

  /** Appends another segment whose points are all later than these. */
  appendSeg(o: NumSeg): void {
    if (o.n === 0) return;
    if (this.n === 0) {
      this.firstT = o.firstT;
      this.firstV = o.firstV;
    } else this.cross(o.firstT, o.firstV);
    this.n += o.n;
    this.sum += o.sum;
    if (o.min < this.min) this.min = o.min;
    if (o.max > this.max) this.max = o.max;
    this.lastT = o.lastT;
    this.lastV = o.lastV;
    this.rs += o.rs;
    this.mergeRates(o);
    if (this.sketch && o.sketch) this.sketch.merge(o.sketch);
  }

  private mergeRates(o: NumSeg): void {
    if (!this.rates) return;
    this.rn += o.rn;
    this.rsum += o.rsum;
    if (o.rmin < this.rmin) this.rmin = o.rmin;
    if (o.rmax > this.rmax) this.rmax = o.rmax;
    if (this.rateSketch && o.rateSketch) this.rateSketch.merge(o.rateSketch);
  }

  /**
   * Adds points whose times interleave with these (several series pooled, or late points
   * merged into a bucket whose raw points are gone): counts, sums, extremes, rates and sketches
   * add up; first and last are the earliest and latest; no pair across the two is formed.
   */
  mergeUnordered(o: NumSeg): void {
    if (o.n === 0) return;
    if (this.n === 0 || o.firstT < this.firstT) {
      this.firstT = o.firstT;
      this.firstV = o.firstV;
    }
    if (this.n === 0 || o.lastT >= this.lastT) {
      this.lastT = o.lastT;
      this.lastV = o.lastV;
    }
    this.n += o.n;
    this.sum += o.sum;
    if (o.min < this.min) this.min = o.min;
    if (o.max > this.max) this.max = o.max;
    this.rs += o.rs;
    this.mergeRates(o);
    if (this.sketch && o.sketch) this.sketch.merge(o.sketch);
  }
}

const DOWN = 0;
const UP = 1;

/**
 * Availability points in time order, as much of them as availabilityBucketStats needs to answer
 * a bucket made of consecutive segments: the first and last point, the time between points by
 * the earlier one's state, and the 0.16 and 0.2x counters of what happens after the first point.
 */
export class AvailSeg {
  samples = 0;
  firstT = Number.NaN;
  firstV = Number.NaN;
  lastT = Number.NaN;
  lastV = Number.NaN;
  readonly dur = [0, 0, 0, 0];
  dt016 = 0;
  downCnt = 0;
  notUpCnt = 0;
  lastDT = Number.NaN;
  lastNUT = Number.NaN;

  clear(): void {
    this.samples = this.dt016 = this.downCnt = this.notUpCnt = 0;
    this.firstT = this.firstV = this.lastT = this.lastV = this.lastDT = this.lastNUT = Number.NaN;
    this.dur.fill(0);
  }

  /** The pair (last point so far, the point (t, v)), as availabilityBucketStats walks it. */
  private cross(t: number, v: number): void {
    const prevT = this.lastT;
    const prevV = this.lastV;
    this.dur[prevV]! += t - prevT;
    if (v !== UP) {
      if (prevV === UP) this.notUpCnt++;
      this.lastNUT = t;
    } else if (prevV !== UP) this.lastNUT = t;
    if (v === DOWN) {
      this.lastDT = t;
      if (prevV === DOWN) this.dt016 += t - prevT;
      else this.downCnt++;
    } else if (v === UP && prevV === DOWN) {
      this.dt016 += t - prevT;
      this.lastDT = t;
    }
  }

  addPoint(t: number, v: number): void {
    if (!(v >= 0 && v <= 3)) return;
    if (this.samples === 0) {
      this.firstT = t;
      this.firstV = v;
    } else this.cross(t, v);
    this.samples++;
    this.lastT = t;
    this.lastV = v;
  }

  /** Appends row j, whose points are later than these. */
  appendRow(r: AvailabilityRows, j: number): void {
    if (r.samples[j] === 0) return;
    this.appendParts(r.samples[j]!, r.firstT[j]!, r.firstV[j]!, r.lastT[j]!, r.lastV[j]!, r.dDown[j]!, r.dUp[j]!, r.dUnknown[j]!, r.dAdmin[j]!, r.dt016[j]!, r.downCnt[j]!, r.notUpCnt[j]!, r.lastDT[j]!, r.lastNUT[j]!);
  }

  appendSeg(o: AvailSeg): void {
    if (o.samples === 0) return;
    this.appendParts(o.samples, o.firstT, o.firstV, o.lastT, o.lastV, o.dur[0]!, o.dur[1]!, o.dur[2]!, o.dur[3]!, o.dt016, o.downCnt, o.notUpCnt, o.lastDT, o.lastNUT);
  }

  private appendParts(
    samples: number,
    firstT: number,
    firstV: number,
    lastT: number,
    lastV: number,
    dDown: number,
    dUp: number,
    dUnknown: number,
    dAdmin: number,
    dt016: number,
    downCnt: number,
    notUpCnt: number,
    lastDT: number,
    lastNUT: number,
  ): void {
    if (this.samples === 0) {
      this.firstT = firstT;
      this.firstV = firstV;
    } else this.cross(firstT, firstV);
    this.samples += samples;
    this.dur[0]! += dDown;
    this.dur[1]! += dUp;
    this.dur[2]! += dUnknown;
    this.dur[3]! += dAdmin;
    this.dt016 += dt016;
    this.downCnt += downCnt;
    this.notUpCnt += notUpCnt;
    // Set later in time than anything before: they win when set.
    if (!Number.isNaN(lastDT)) this.lastDT = lastDT;
    if (!Number.isNaN(lastNUT)) this.lastNUT = lastNUT;
    this.lastT = lastT;
    this.lastV = lastV;
  }
}
