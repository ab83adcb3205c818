import { emptyBucket, type NumericBucketPoint } from "./bucket-points.ts";
import type { Buckets } from "./buckets.ts";
import type { PercentileRequest } from "./percentiles-param.ts";
import { summarize } from "./numeric-summary.ts";
import { asColumns, lowerBound, type Order, type Series } from "./series.ts";

export interface NumericStatsOptions {
  /** The requested percentiles; see parsePercentiles. */
  percentiles?: readonly PercentileRequest[];
  /**
   * Order in which each bucket's points reach the estimators, as upstream reads them: "desc"
   * for gauges (single and several metrics) and for counters over several metrics; "asc" for
   * a single counter and for all rates.
   */
  feedOrder: Order;
}

/**
 * Stats of an ascending series per bucket. Every bucket is returned, ascending; one without
 * points is `{start, end, empty: true}`. Points outside the buckets are ignored. Since the
 * series is sorted, each bucket is one index range, found by binary search.
 */
export function numericBucketStats(series: Series, buckets: Buckets, opts: NumericStatsOptions): NumericBucketPoint[] {
  const { ts, values } = asColumns(series);
  const percentiles = opts.percentiles ?? [];
  const out: NumericBucketPoint[] = new Array(buckets.count);
  let j = lowerBound(ts, buckets.start);
  for (let b = 0; b < buckets.count; b++) {
    const start = buckets.start + b * buckets.step;
    const end = start + buckets.step;
    const from = j;
    j = lowerBound(ts, end, j);
    if (from === j) {
      out[b] = emptyBucket(start, end);
    } else {
      const s = summarize(values, from, j, opts.feedOrder, percentiles);
      const point: NumericBucketPoint = {
        start,
        end,
        min: s.min,
        avg: s.avg,
        median: s.median,
        max: s.max,
        sum: s.sum,
        samples: s.samples,
        empty: false,
      };
      if (s.percentiles) point.percentiles = s.percentiles;
      out[b] = point;
    }
  }
  return out;
}
