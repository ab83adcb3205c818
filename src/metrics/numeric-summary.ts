import type { NumericStats, Percentile } from "./bucket-points.ts";
import { psquarePercentile } from "./psquare.ts";
import type { Order } from "./series.ts";

/**
 * min/avg/median/max/sum/samples and the requested percentiles of values[from..to), fed in
 * `feed` order, which matters for the P² estimates. avg is sum/samples: upstream's running mean
 * (m += (x − m)/n) differs only in the last bits and costs a dependent division per point.
 * The range must be non-empty. `percentiles` are request values (50 for the median).
 */
export function summarize(
  values: ArrayLike<number>,
  from: number,
  to: number,
  feed: Order,
  percentiles: readonly number[],
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
      // Reported as a fraction (0.16); rounded so that 99.9 reads 0.999, not 0.9990000000000001.
      (p): Percentile => ({ quantile: Number((p / 100).toPrecision(15)), value: psquarePercentile(values, p, from, to, feed) }),
    );
  }
  return stats;
}
