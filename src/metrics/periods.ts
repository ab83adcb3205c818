import { ApiError } from "../http/errors.ts";
import type { Series } from "./series.ts";

export const PERIOD_OPS = ["lt", "lte", "eq", "neq", "gt", "gte"] as const;
export type PeriodOp = (typeof PERIOD_OPS)[number];

export const INVALID_OP_MESSAGE = "Invalid value for op parameter. Supported values are lt, lte, eq, neq, gt, gte.";

/** Checks the `op` parameter of GET /gauges/{id}/periods; absent or unknown is a 400. */
export function parsePeriodOp(op: string | undefined): PeriodOp {
  if (op !== undefined && (PERIOD_OPS as readonly string[]).includes(op)) return op as PeriodOp;
  throw new ApiError(400, INVALID_OP_MESSAGE);
}

/**
 * The periods in which consecutive points of an ascending series satisfy `value op threshold`:
 * `[firstTimestamp, lastTimestamp]` of each run of matching points (a single point gives
 * `[t, t]`). An `op` string is validated first (400 when unknown).
 */
export function periods(series: Series, threshold: number, op: PeriodOp | string): [number, number][] {
  const test = predicate(parsePeriodOp(op), threshold);
  const { ts, values } = series;
  const out: [number, number][] = [];
  let runStart = -1;
  for (let i = 0; i < ts.length; i++) {
    if (test(values[i]!)) {
      if (runStart < 0) runStart = i;
    } else if (runStart >= 0) {
      out.push([ts[runStart]!, ts[i - 1]!]);
      runStart = -1;
    }
  }
  if (runStart >= 0) out.push([ts[runStart]!, ts[ts.length - 1]!]);
  return out;
}

function predicate(op: PeriodOp, t: number): (v: number) => boolean {
  switch (op) {
    case "lt":
      return (v) => v < t;
    case "lte":
      return (v) => v <= t;
    case "eq":
      return (v) => v === t;
    case "neq":
      return (v) => v !== t;
    case "gt":
      return (v) => v > t;
    case "gte":
      return (v) => v >= t;
  }
}
