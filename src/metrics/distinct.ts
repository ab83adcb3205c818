import type { Order } from "./series.ts";

/** Raw points in column form; values are availability codes or strings. */
export interface RawColumns<V> {
  ts: ArrayLike<number>;
  values: ArrayLike<V>;
}

export interface DistinctOptions {
  /** Traversal order of the answer; the input is ascending. Default "asc". */
  order?: Order;
  /**
   * Applied after dropping repeats; absent or ≤ 0: no limit. Upstream limits availability after
   * `distinct` but strings before it: for strings, limit the read and pass no limit here.
   */
  limit?: number;
}

/**
 * `distinct=true` of raw availability and string reads: walks an ascending series in the
 * requested order and drops every point whose value equals the previous point's, so the first
 * point of each run (in that order) is kept. Returns the kept points in that order.
 */
export function distinct<V>(series: RawColumns<V>, opts: DistinctOptions = {}): { ts: number[]; values: V[] } {
  const { ts, values } = series;
  const n = ts.length;
  const limit = opts.limit !== undefined && opts.limit > 0 ? opts.limit : Number.POSITIVE_INFINITY;
  const asc = (opts.order ?? "asc") === "asc";
  const outTs: number[] = [];
  const outValues: V[] = [];
  let prev: V | undefined;
  for (let k = 0; k < n && outTs.length < limit; k++) {
    const i = asc ? k : n - 1 - k;
    const v = values[i]!;
    if (k > 0 && v === prev) continue;
    outTs.push(ts[i]!);
    outValues.push(v);
    prev = v;
  }
  return { ts: outTs, values: outValues };
}
