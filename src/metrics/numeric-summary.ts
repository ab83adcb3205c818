import type { NumericStats, Percentile } from "./bucket-points.ts";
import { PSquare } from "./psquare.ts";
import type { Order } from "./series.ts";

/**
 * min/avg/median/max/sum/samples and the requested percentiles of values[from..to), fed in
 * `feed` order: the order matters for the P² estimates and, in the last bits, for the mean,
 * which is the running mean upstream uses (m += (x − m)/n), not sum/n. The range must be
 * non-empty. `percentiles` are request values (50 for the median).
 */
export function summarize(
  values: ArrayLike<number>,
  from: number,
  to: number,
  feed: Order,
  percentiles: readonly number[],
): NumericStats {
  const median = new PSquare(50);
  const estimators = percentiles.map((p) => new PSquare(p));
  const k = estimators.length;
  const samples = to - from;
  const dir = feed === "asc" ? 1 : -1;
  let i = feed === "asc" ? from : to - 1;
  let min = values[i]!;
  let max = min;
  let sum = 0;
  let mean = 0;
  for (let n = 1; n <= samples; n++, i += dir) {
    const v = values[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
    mean += (v - mean) / n;
    median.add(v);
    for (let e = 0; e < k; e++) estimators[e]!.add(v);
  }
  const stats: NumericStats = { min, avg: mean, median: median.result(), max, sum, samples };
  if (k > 0) stats.percentiles = estimators.map((e): Percentile => ({ quantile: e.quantile, value: e.result() }));
  return stats;
}
