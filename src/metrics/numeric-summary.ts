import type { NumericStats, Percentile } from "./bucket-points.ts";
import type { PercentileRequest } from "./percentiles-param.ts";
import { psquarePercentile } from "./psquare.ts";
import type { Order } from "./series.ts";

/**
 * min/avg/median/max/sum/samples and the requested percentiles of values[from..to), fed in
 * `feed` order, which matters for the P² estimates. avg is sum/samples: upstream's running mean
 * (m += (x − m)/n) differs only in the last bits and costs a dependent division per point.
 * The range must be non-empty. `percentiles` are the requested ones (quantile 50 is the median).
 */
export function summarize(
  values: ArrayLike<number>,
  from: number,
  to: number,
  feed: Order,
  percentiles: readonly PercentileRequest[],
): NumericStats {
  const samples = to - from;
  const dir = feed === "asc" ? 1 : -1;
  let i = feed === "asc" ? from : to - 1;
  let min = values[i]!;
  let max = min;
  let sum = 0;
  for (let n = 0; n < samples; n++, i += dir) {
    const v = values[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  // One pass per estimate: each runs fastest alone, with its state in registers.
  const median = psquarePercentile(values, 50, from, to, feed);
  const stats: NumericStats = { min, avg: sum / samples, median, max, sum, samples };
  if (percentiles.length > 0) {
    stats.percentiles = percentiles.map(
      (p): Percentile => ({
        quantile: p.quantile,
        originalQuantile: p.original,
        value: psquarePercentile(values, p.quantile, from, to, feed),
      }),
    );
  }
  return stats;
}
