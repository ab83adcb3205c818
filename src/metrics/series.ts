/**
 * A series in column form, as the store returns it: timestamps ascending, values index-aligned.
 * Availability values are the numeric codes of AVAILABILITY_CODE.
 */
export interface Series {
  ts: ArrayLike<number>;
  values: ArrayLike<number>;
}

/** A series this module allocated itself: typed arrays, so it costs no per-point objects. */
export interface ColumnSeries {
  ts: Float64Array;
  values: Float64Array;
}

export type Order = "asc" | "desc";

/**
 * Pools several ascending series into one ascending series (stats over several metrics with
 * stacked=false). Equal timestamps keep the order of the input list, so results are repeatable.
 */
export function mergeSeries(list: readonly Series[]): ColumnSeries {
  if (list.length === 0) return { ts: new Float64Array(0), values: new Float64Array(0) };
  // Pairwise rounds keep the work at n·log(k) without a heap.
  let round: Series[] = [...list];
  while (round.length > 1) {
    const next: Series[] = [];
    for (let i = 0; i < round.length; i += 2) {
      const a = round[i]!;
      const b = round[i + 1];
      next.push(b === undefined ? a : mergeTwo(a, b));
    }
    round = next;
  }
  const only = round[0]!;
  return isColumn(only) ? only : copyColumns(only);
}

function isColumn(s: Series): s is ColumnSeries {
  return s.ts instanceof Float64Array && s.values instanceof Float64Array;
}

function copyColumns(s: Series): ColumnSeries {
  return { ts: Float64Array.from(s.ts), values: Float64Array.from(s.values) };
}

/**
 * The series as typed arrays, copied only when it is not already. The per-point loops of the
 * stats then always see one array kind, which keeps their element reads monomorphic.
 */
export function asColumns(s: Series): ColumnSeries {
  return isColumn(s) ? s : copyColumns(s);
}

/** First index in [from, to) with ts[i] >= t (ts ascending), or `to`. */
export function lowerBound(ts: Float64Array, t: number, from = 0, to = ts.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function mergeTwo(a: Series, b: Series): ColumnSeries {
  const na = a.ts.length;
  const nb = b.ts.length;
  const ts = new Float64Array(na + nb);
  const values = new Float64Array(na + nb);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < na && j < nb) {
    if (b.ts[j]! < a.ts[i]!) {
      ts[k] = b.ts[j]!;
      values[k++] = b.values[j++]!;
    } else {
      ts[k] = a.ts[i]!;
      values[k++] = a.values[i++]!;
    }
  }
  while (i < na) {
    ts[k] = a.ts[i]!;
    values[k++] = a.values[i++]!;
  }
  while (j < nb) {
    ts[k] = b.ts[j]!;
    values[k++] = b.values[j++]!;
  }
  return { ts, values };
}
