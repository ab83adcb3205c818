import type { ColumnSeries, Order, Series } from "./series.ts";

export interface RateOptions {
  /** Counters drop the pairs across a reset; gauge rates keep negative values. */
  kind: "counter" | "gauge";
  /** Order of the returned points; default "asc". */
  order?: Order;
  /** Applied after pairing (dropped pairs do not count); absent or ≤ 0: no limit. */
  limit?: number;
}

/**
 * Rates of an ascending series, per minute: each pair of consecutive points gives
 * 60 000 · Δvalue / Δt(ms), timestamped at the later point. For counters, a pair whose later
 * value is lower than the earlier one is a reset and gives no rate; the next pair starts at the
 * point after the reset.
 */
export function rates(series: Series, opts: RateOptions): ColumnSeries {
  const { ts, values } = series;
  const n = ts.length;
  const counter = opts.kind === "counter";
  const rts = new Float64Array(Math.max(0, n - 1));
  const rvs = new Float64Array(rts.length);
  let k = 0;
  for (let i = 1; i < n; i++) {
    const v0 = values[i - 1]!;
    const v1 = values[i]!;
    if (counter && v1 < v0) continue;
    const t1 = ts[i]!;
    rts[k] = t1;
    rvs[k++] = (60_000 * (v1 - v0)) / (t1 - ts[i - 1]!);
  }
  const limit = opts.limit !== undefined && opts.limit > 0 ? Math.min(opts.limit, k) : k;
  if ((opts.order ?? "asc") === "asc") return { ts: rts.slice(0, limit), values: rvs.slice(0, limit) };
  // Descending: the newest `limit` rates, newest first.
  const ots = new Float64Array(limit);
  const ovs = new Float64Array(limit);
  for (let i = 0; i < limit; i++) {
    ots[i] = rts[k - 1 - i]!;
    ovs[i] = rvs[k - 1 - i]!;
  }
  return { ts: ots, values: ovs };
}
