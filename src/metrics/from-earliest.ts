import { ApiError } from "../http/errors.ts";
import { DAY_MS } from "./model.ts";
import type { TimeRange } from "./time-range.ts";

export const FROM_EARLIEST_WITH_RANGE = "fromEarliest can only be used without start & end";
export const FROM_EARLIEST_WITHOUT_BUCKETS = "fromEarliest can only be used with bucketed results";

/**
 * The range of a `fromEarliest=true` stats request: the metric's whole retention window,
 * [now − retention days, now). Giving start or end as well is a 400.
 */
export function fromEarliestRange(
  start: number | undefined,
  end: number | undefined,
  now: number,
  retentionDays: number,
): TimeRange {
  if (start !== undefined || end !== undefined) throw new ApiError(400, FROM_EARLIEST_WITH_RANGE);
  return { start: now - retentionDays * DAY_MS, end: now };
}

/**
 * Drops the leading empty buckets of a `fromEarliest` answer so that it starts at the first
 * bucket with data; later empty buckets stay. All empty gives an empty list (answered 204).
 */
export function dropLeadingEmpty<T extends { empty: boolean }>(points: readonly T[]): T[] {
  let i = 0;
  while (i < points.length && points[i]!.empty) i++;
  return points.slice(i);
}
