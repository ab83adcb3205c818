/**
 * Functions of a range vector, each computed over one series' samples in one window
 * (indices lo ≤ i < hi of ts/vals, all inside (start, end]). Formulas follow Prometheus'
 * promql/functions.go, including its extrapolation and summation order.
 */
import { kahanAdd, MeanAccumulator, quantile, VarianceAccumulator } from "./kahan.ts";

export interface Window {
  ts: Float64Array;
  vals: Float64Array;
  lo: number;
  hi: number;
  /** Exclusive start and inclusive end of the window, ms. */
  start: number;
  end: number;
  /** The selector's range, ms. */
  range: number;
  /** The scalar argument at this step (φ of quantile_over_time, t of predict_linear). */
  param: number;
  /** The evaluation time of this step, ms. */
  evalTime: number;
  /**
   * Prefix counts over the whole series for functions listed in PREFIX_COUNTS: counts[i] is
   * how many k in 1..i have the counted property between samples k−1 and k, so a window
   * [lo, hi) holds counts[hi−1] − counts[lo] of them.
   */
  counts: Int32Array;
}

export type RangeFunction = (w: Window) => number | undefined;

/** rate, increase and delta: the change over the window, extrapolated to its edges. */
function extrapolatedRate(w: Window, isCounter: boolean, isRate: boolean): number | undefined {
  return changeOver(w.ts, w.vals, isCounter && w.counts[w.hi - 1] !== w.counts[w.lo], w.lo, w.hi, w.start, w.end, w.range, isCounter, isRate);
}

/**
 * extrapolatedRate of samples lo ≤ i < hi in (start, end] (also used by extrapolatedRateSteps);
 * `resets`: a counter whose window holds a reset.
 */
function changeOver(
  ts: Float64Array,
  vals: Float64Array,
  resets: boolean,
  lo: number,
  hi: number,
  start: number,
  end: number,
  range: number,
  isCounter: boolean,
  isRate: boolean,
): number | undefined {
  const n = hi - lo;
  if (n < 2) return undefined;
  const firstT = ts[lo]!;
  const lastT = ts[hi - 1]!;
  let result = vals[hi - 1]! - vals[lo]!;
  // Only windows that hold a reset walk their samples; the additions stay in Prometheus' order.
  if (resets) {
    for (let i = lo + 1; i < hi; i++) if (vals[i]! < vals[i - 1]!) result += vals[i - 1]!;
  }
  return extrapolate(result, n, firstT, lastT, vals[lo]!, start, end, range, isCounter, isRate);
}

/**
 * The change `result` over n ≥ 2 samples from (firstT, first) to lastT, in a window (start,
 * end] of `range` ms, extrapolated to the window's edges as Prometheus does (also for windows
 * answered from rollup tiers, src/promql/tier-windows.ts).
 */
export function extrapolate(result: number, n: number, firstT: number, lastT: number, first: number, start: number, end: number, range: number, isCounter: boolean, isRate: boolean): number {
  let durationToStart = (firstT - start) / 1000;
  let durationToEnd = (end - lastT) / 1000;
  const sampledInterval = (lastT - firstT) / 1000;
  const averageBetween = sampledInterval / (n - 1);
  const threshold = averageBetween * 1.1;
  if (durationToStart >= threshold) durationToStart = averageBetween / 2;
  if (isCounter && result > 0 && first >= 0) {
    // A counter does not go below zero: extrapolate at most to where it would have been zero.
    const durationToZero = sampledInterval * (first / result);
    if (durationToZero < durationToStart) durationToStart = durationToZero;
  }
  if (durationToEnd >= threshold) durationToEnd = averageBetween / 2;
  let factor = (sampledInterval + durationToStart + durationToEnd) / sampledInterval;
  if (isRate) factor /= range / 1000;
  return result * factor;
}

/** Where a range function of one series writes its value at each step. */
export interface StepOut {
  vals: Float64Array;
  /** Set to 1 at the steps that get a value (others are left as they are). */
  has: Uint8Array;
}

/**
 * rate, increase or delta of one series at every step, windows (end − range, end] for `ends`:
 * the window walk of Evaluator.applyRange and the arithmetic of extrapolatedRate, without a
 * Window object and a call through RANGE_FUNCTIONS per step (rate is most dashboards' query).
 * Resets are found as the window's end passes them (no prefix counts): the window [lo, hi)
 * holds one when the latest reset k (vals[k] < vals[k − 1], k < hi) is above lo.
 * Returns whether some step got a value.
 */
export function extrapolatedRateSteps(ts: Float64Array, vals: Float64Array, ends: Float64Array, range: number, fn: string, out: StepOut): boolean {
  const isCounter = fn !== "delta";
  const isRate = fn === "rate";
  const rangeS = range / 1000;
  const len = ts.length;
  let lo = 0;
  let hi = 0;
  let lastReset = -1;
  let any = false;
  // The extrapolation of the last step, by its inputs: regular samples and steps give each
  // window the same offsets to its edges and the same count, so the divisions of changeOver
  // are done once per run of such windows (the same inputs give the same bits).
  let kToStart = Number.NaN;
  let kToEnd = Number.NaN;
  let kInterval = Number.NaN;
  let kN = 0;
  let toStart = 0;
  let toEnd = 0;
  let interval = 0;
  let factor = 0;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i]!;
    const start = end - range;
    if (hi > 0 && ts[hi - 1]! > end) {
      lo = hi = 0;
      lastReset = -1;
    }
    while (hi < len && ts[hi]! <= end) {
      if (hi > 0 && vals[hi]! < vals[hi - 1]!) lastReset = hi;
      hi++;
    }
    while (lo < hi && ts[lo]! <= start) lo++;
    const n = hi - lo;
    if (n < 2) continue;
    const firstT = ts[lo]!;
    const lastT = ts[hi - 1]!;
    const first = vals[lo]!;
    let result = vals[hi - 1]! - first;
    if (isCounter && lastReset > lo) {
      for (let k = lo + 1; k < hi; k++) if (vals[k]! < vals[k - 1]!) result += vals[k - 1]!;
    }
    const dStart = firstT - start;
    const dEnd = end - lastT;
    const dInterval = lastT - firstT;
    if (dStart !== kToStart || dEnd !== kToEnd || dInterval !== kInterval || n !== kN) {
      // changeOver's arithmetic up to the counter's zero point, in its order.
      kToStart = dStart;
      kToEnd = dEnd;
      kInterval = dInterval;
      kN = n;
      toStart = dStart / 1000;
      toEnd = dEnd / 1000;
      interval = dInterval / 1000;
      const averageBetween = interval / (n - 1);
      const threshold = averageBetween * 1.1;
      if (toStart >= threshold) toStart = averageBetween / 2;
      if (toEnd >= threshold) toEnd = averageBetween / 2;
      factor = (interval + toStart + toEnd) / interval;
      if (isRate) factor /= rangeS;
    }
    // A counter is extrapolated at most to where it would have been zero. When first ≥ result
    // (> 0), first / result ≥ 1 (division rounds monotonically), so that point is at least
    // `interval` back, and no nearer than toStart when toStart ≤ interval: no division needed.
    let f = factor;
    if (isCounter && result > 0 && first >= 0 && !(first >= result && toStart <= interval)) {
      const durationToZero = interval * (first / result);
      if (durationToZero < toStart) {
        f = (interval + durationToZero + toEnd) / interval;
        if (isRate) f /= rangeS;
      }
    }
    out.vals[i] = result * f;
    out.has[i] = 1;
    any = true;
  }
  return any;
}

/** The range functions extrapolatedRateSteps computes. */
export const STEP_LOOP: ReadonlySet<string> = new Set(["rate", "increase", "delta"]);

/** irate and idelta: from the last two samples. */
function instantValue(w: Window, isRate: boolean): number | undefined {
  const { ts, vals, lo, hi } = w;
  if (hi - lo < 2) return undefined;
  const last = vals[hi - 1]!;
  const prev = vals[hi - 2]!;
  const interval = ts[hi - 1]! - ts[hi - 2]!;
  if (interval === 0) return undefined;
  // After a counter reset the last value is the increase since the reset.
  let result = isRate && last < prev ? last : last - prev;
  if (isRate) result /= interval / 1000;
  return result;
}

/** Least-squares slope and intercept, x in seconds relative to `interceptTime`. */
function linearRegression(w: Window, interceptTime: number): [number, number] {
  const { ts, vals, lo, hi } = w;
  const sumX = { sum: 0, c: 0 };
  const sumY = { sum: 0, c: 0 };
  const sumXY = { sum: 0, c: 0 };
  const sumX2 = { sum: 0, c: 0 };
  const initY = vals[lo]!;
  let constY = true;
  for (let i = lo; i < hi; i++) {
    const y = vals[i]!;
    if (constY && i > lo && y !== initY) constY = false;
    const x = (ts[i]! - interceptTime) / 1000;
    kahanAdd(sumX, x);
    kahanAdd(sumY, y);
    kahanAdd(sumXY, x * y);
    kahanAdd(sumX2, x * x);
  }
  if (constY) return Number.isFinite(initY) || Number.isNaN(initY) ? [0, initY] : [Number.NaN, Number.NaN];
  const n = hi - lo;
  const sx = sumX.sum + sumX.c;
  const sy = sumY.sum + sumY.c;
  const sxy = sumXY.sum + sumXY.c;
  const sx2 = sumX2.sum + sumX2.c;
  const covXY = sxy - (sx * sy) / n;
  const varX = sx2 - (sx * sx) / n;
  const slope = covXY / varX;
  return [slope, sy / n - (slope * sx) / n];
}

function over(w: Window, f: (v: number) => void): void {
  for (let i = w.lo; i < w.hi; i++) f(w.vals[i]!);
}

export const RANGE_FUNCTIONS: Record<string, RangeFunction> = {
  rate: (w) => extrapolatedRate(w, true, true),
  increase: (w) => extrapolatedRate(w, true, false),
  delta: (w) => extrapolatedRate(w, false, false),
  irate: (w) => instantValue(w, true),
  idelta: (w) => instantValue(w, false),
  deriv: (w) => (w.hi - w.lo < 2 ? undefined : linearRegression(w, w.ts[w.lo]!)[0]),
  predict_linear: (w) => {
    if (w.hi - w.lo < 2) return undefined;
    const [slope, intercept] = linearRegression(w, w.evalTime);
    return slope * w.param + intercept;
  },
  resets: (w) => w.counts[w.hi - 1]! - w.counts[w.lo]!,
  changes: (w) => w.counts[w.hi - 1]! - w.counts[w.lo]!,
  avg_over_time: (w) => {
    const m = new MeanAccumulator();
    over(w, (v) => m.add(v));
    return m.value();
  },
  sum_over_time: (w) => {
    const s = { sum: 0, c: 0 };
    over(w, (v) => kahanAdd(s, v));
    return s.sum + s.c;
  },
  count_over_time: (w) => w.hi - w.lo,
  min_over_time: (w) => {
    let m = w.vals[w.lo]!;
    over(w, (v) => {
      if (v < m || Number.isNaN(m)) m = v;
    });
    return m;
  },
  max_over_time: (w) => {
    let m = w.vals[w.lo]!;
    over(w, (v) => {
      if (v > m || Number.isNaN(m)) m = v;
    });
    return m;
  },
  last_over_time: (w) => w.vals[w.hi - 1]!,
  present_over_time: () => 1,
  stddev_over_time: (w) => {
    const a = new VarianceAccumulator();
    over(w, (v) => a.add(v));
    return Math.sqrt(a.variance());
  },
  stdvar_over_time: (w) => {
    const a = new VarianceAccumulator();
    over(w, (v) => a.add(v));
    return a.variance();
  },
  quantile_over_time: (w) => quantile(w.param, Array.from(w.vals.subarray(w.lo, w.hi))),
};

const isReset = (a: number, b: number) => b < a;
const isChange = (a: number, b: number) => a !== b && !(Number.isNaN(a) && Number.isNaN(b));

/** What the prefix counts of Window.counts count, for the functions that use them. */
export const PREFIX_COUNTS: Readonly<Record<string, (prev: number, cur: number) => boolean>> = {
  rate: isReset,
  increase: isReset,
  resets: isReset,
  changes: isChange,
};

/** Fills `out[0..n)` with the prefix counts of `pred` over consecutive values. */
export function prefixCounts(vals: Float64Array, pred: (prev: number, cur: number) => boolean, out: Int32Array): void {
  const n = vals.length;
  if (n === 0) return;
  out[0] = 0;
  for (let i = 1; i < n; i++) out[i] = out[i - 1]! + (pred(vals[i - 1]!, vals[i]!) ? 1 : 0);
}

/** Range functions whose result keeps the metric name (they pick a sample, not derive one). */
export const KEEPS_NAME: ReadonlySet<string> = new Set(["last_over_time"]);
