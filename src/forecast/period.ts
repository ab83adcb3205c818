export interface DetectOptions {
  /** Longest season to consider (default: half the series). */
  maxPeriod?: number;
  /** Lowest autocorrelation a season needs (default 0.3). */
  minCorrelation?: number;
}

/** Autocorrelation at `lag`, averaged over the pairs (so long lags are not shrunk towards zero). */
function autocorrelation(x: number[], lag: number, variance: number): number {
  let s = 0;
  for (let t = 0; t + lag < x.length; t++) s += x[t]! * x[t + lag]!;
  return s / (x.length - lag) / variance;
}

/** Residuals of the least-squares line through the series. */
function detrend(values: number[]): number[] {
  const n = values.length;
  const tMean = (n - 1) / 2;
  const yMean = values.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  values.forEach((y, t) => {
    sxy += (t - tMean) * (y - yMean);
    sxx += (t - tMean) * (t - tMean);
  });
  const slope = sxx > 0 ? sxy / sxx : 0;
  return values.map((y, t) => y - yMean - slope * (t - tMean));
}

function centredDifferences(values: number[]): number[] {
  const d: number[] = [];
  for (let i = 1; i < values.length; i++) d.push(values[i]! - values[i - 1]!);
  const mu = d.reduce((a, b) => a + b, 0) / d.length;
  return d.map((x) => x - mu);
}

const variance = (x: number[]) => x.reduce((a, v) => a + v * v, 0) / x.length;

/**
 * Plausible season lengths, most likely first, from the autocorrelation function (ACF).
 * A lag qualifies when, in the series with its linear trend removed, the ACF has a local peak
 * there, after the ACF first dropped to zero (so that the slow decay of smooth or drifting
 * series is not a peak), above both `minCorrelation` and about three standard errors of a
 * white-noise ACF. Random walks show pseudo-cycles in that ACF, so the lag must also correlate
 * significantly in the first differences, which are white noise for a random walk.
 */
export function periodCandidates(values: number[], opts: DetectOptions = {}): number[] {
  const n = values.length;
  const maxLag = Math.min(opts.maxPeriod ?? Number.POSITIVE_INFINITY, Math.floor(n / 2));
  if (maxLag < 2) return [];
  const x = detrend(values);
  const vx = variance(x);
  const d = centredDifferences(values);
  const vd = variance(d);
  if (!(vx > 0) || !(vd > 0)) return [];

  const r: number[] = [1];
  for (let lag = 1; lag <= maxLag + 1 && lag < n; lag++) r.push(autocorrelation(x, lag, vx));
  const firstDip = r.findIndex((v) => v <= 0);
  if (firstDip < 0) return [];

  const peaks: { lag: number; r: number }[] = [];
  for (let lag = Math.max(2, firstDip + 1); lag <= maxLag; lag++) {
    const here = r[lag]!;
    if (!(here > r[lag - 1]! && here >= (r[lag + 1] ?? Number.NEGATIVE_INFINITY))) continue;
    if (here <= Math.max(opts.minCorrelation ?? 0.3, 3 / Math.sqrt(n - lag))) continue;
    if (autocorrelation(d, lag, vd) <= 2 / Math.sqrt(d.length - lag)) continue;
    peaks.push({ lag, r: here });
  }
  peaks.sort((a, b) => b.r - a.r || a.lag - b.lag);
  // Multiples of the season peak too; a shorter lag nearly as strong is the season.
  const best = peaks[0];
  if (!best) return [];
  const shorter = peaks.filter((p) => p.lag < best.lag && p.r >= 0.9 * best.r).sort((a, b) => a.lag - b.lag)[0];
  const first = shorter ?? best;
  return [first.lag, ...peaks.filter((p) => p !== first).map((p) => p.lag)];
}

/** The most likely season length, or undefined when the series shows none. */
export function detectPeriod(values: number[], opts: DetectOptions = {}): number | undefined {
  return periodCandidates(values, opts)[0];
}
