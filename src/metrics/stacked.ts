import { emptyBucket, type NumericBucketPoint } from "./bucket-points.ts";
import type { Buckets } from "./buckets.ts";

/**
 * Stacked stats of several metrics (`stacked=true`): each metric is bucketed on its own (with
 * numericBucketStats over the same buckets), then per bucket the non-empty buckets are added:
 * min, avg, median, max and sum are the sums of the metrics' values, and samples is the number
 * of metrics that had data there. No percentiles. A bucket where no metric had data is empty.
 */
export function stackBuckets(perMetric: readonly (readonly NumericBucketPoint[])[], buckets: Buckets): NumericBucketPoint[] {
  const out: NumericBucketPoint[] = new Array(buckets.count);
  for (let b = 0; b < buckets.count; b++) {
    const start = buckets.start + b * buckets.step;
    const end = start + buckets.step;
    let min = 0;
    let avg = 0;
    let median = 0;
    let max = 0;
    let sum = 0;
    let samples = 0;
    for (const points of perMetric) {
      const p = points[b];
      if (p === undefined || p.empty || p.start !== start) continue;
      min += p.min;
      avg += p.avg;
      median += p.median;
      max += p.max;
      sum += p.sum;
      samples++;
    }
    out[b] = samples === 0 ? emptyBucket(start, end) : { start, end, min, avg, median, max, sum, samples, empty: false };
  }
  return out;
}
