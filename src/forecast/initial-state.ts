import { type ModelName, warmUp } from "./models.ts";
import type { SmoothingState } from "./smoothing.ts";

function mean(xs: number[], from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += xs[i]!;
  return s / (to - from);
}

/** Least-squares line through the first k values, against their index. */
function line(values: number[], k: number): { intercept: number; slope: number } {
  const tMean = (k - 1) / 2;
  const yMean = mean(values, 0, k);
  let sxy = 0;
  let sxx = 0;
  for (let t = 0; t < k; t++) {
    sxy += (t - tMean) * (values[t]! - yMean);
    sxx += (t - tMean) * (t - tMean);
  }
  const slope = sxy / sxx;
  return { intercept: yMean - slope * tMean, slope };
}

/**
 * The state after the warm-up points (see `warmUp`), computed by a fixed heuristic rather
 * than fitted, so that fitting only searches the smoothing parameters:
 * - simple: level = first value;
 * - double: the least-squares line through the warm-up points: level = its value at the
 *   last of them, trend = its slope (with two points: the second value and the difference);
 * - triple: over the first two seasons, trend = difference of the season means / period,
 *   seasonals = deviations from that trend line averaged over both seasons (centred to sum 0),
 *   level = the trend line at the last warm-up point.
 */
export function initialState(name: ModelName, values: number[], period = 0): SmoothingState {
  const need = warmUp(name, period, values.length);
  if (values.length < need) throw new RangeError(`${name} needs at least ${need} points to start`);
  if (name === "SimpleExponentialSmoothing") return { level: values[0]!, trend: 0, seasonals: [], season: 0 };
  if (name === "DoubleExponentialSmoothing") {
    const { intercept, slope } = line(values, need);
    return { level: intercept + slope * (need - 1), trend: slope, seasonals: [], season: 0 };
  }
  const m = period;
  const mean1 = mean(values, 0, m);
  const mean2 = mean(values, m, 2 * m);
  const trend = (mean2 - mean1) / m;
  const mid = (m - 1) / 2;
  const seasonals: number[] = [];
  for (let i = 0; i < m; i++) {
    const d1 = values[i]! - (mean1 + (i - mid) * trend);
    const d2 = values[m + i]! - (mean2 + (i - mid) * trend);
    seasonals.push((d1 + d2) / 2);
  }
  const centre = mean(seasonals, 0, m);
  for (let i = 0; i < m; i++) seasonals[i]! -= centre;
  // The next observation (index 2m) falls on the first position of the season.
  return { level: mean2 + mid * trend, trend, seasonals, season: 0 };
}
