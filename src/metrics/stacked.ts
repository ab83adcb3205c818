import type { NumericBucketPoint, Percentile } from "./bucket-points.ts";
import type { Buckets } from "./buckets.ts";

/**
 * Stacked stats of several metrics (`stacked=true`): each metric is bucketed on its own (with
 * numericBucketStats over the same buckets and the same requested percentiles), then per bucket
 * the non-empty buckets are added: min, avg, median, max, sum and each percentile are the sums
 * of the metrics' values, and samples is the number of metrics that had data there (Hawkular
 * Metrics from 0.17 on; 0.16 had no percentiles here). A bucket where no metric had data adds
 * up nothing: 0 for min, avg, median, max and sum, and `empty: true` (upstream's
 * SumNumericBucketPointCollector), so a stacked chart shows 0 there rather than a gap.
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
    let percentiles: Percentile[] | undefined;
    for (const points of perMetric) {
      const p = points[b];
      if (p === undefined || p.empty || p.start !== start) continue;
      min += p.min;
      avg += p.avg;
      median += p.median;
      max += p.max;
      sum += p.sum;
      samples++;
      if (p.percentiles) {
        // every metric was asked for the same percentiles, in the same order
        if (percentiles === undefined) percentiles = p.percentiles.map((q) => ({ ...q }));
        else for (let k = 0; k < percentiles.length; k++) percentiles[k]!.value += p.percentiles[k]!.value;
      }
    }
    if (samples === 0) out[b] = { start, end, min: 0, avg: 0, median: 0, max: 0, sum: 0, empty: true };
    else {
      const point: NumericBucketPoint = { start, end, min, avg, median, max, sum, samples, empty: false };
      if (percentiles) point.percentiles = percentiles;
      out[b] = point;
    }
  }
  return out;
}
