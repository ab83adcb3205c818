import { lowerBound } from "./series.ts";

/** Averages of equal buckets over [start, start + count × step); null where a bucket has no point. */
export interface BucketAverages {
  start: number;
  step: number;
  values: (number | null)[];
}

/**
 * The mean of each bucket of an ascending series: a cheap summary for small charts
 * (sparklines), where the full bucket stats (median, percentiles) would cost more than they show.
 */
export function bucketAverages(ts: Float64Array, values: Float64Array, start: number, step: number, count: number): BucketAverages {
  const out: (number | null)[] = new Array(count);
  let j = lowerBound(ts, start);
  for (let b = 0; b < count; b++) {
    const end = start + (b + 1) * step;
    let sum = 0;
    let n = 0;
    while (j < ts.length && ts[j]! < end) {
      const v = values[j++]!;
      if (Number.isFinite(v)) {
        sum += v;
        n++;
      }
    }
    out[b] = n === 0 ? null : sum / n;
  }
  return { start, step, values: out };
}
