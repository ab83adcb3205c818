import { DAY_MS } from "./model.ts";
import type { TimeRange } from "./time-range.ts";

export const FROM_EARLIEST_WITH_RANGE = "fromEarliest can only be used without start & end";

/** What fromEarliest needs to know of a metric definition. */
export interface EarliestSource {
  /** Days; absent: the default retention. */
  dataRetention?: number;
  /** The oldest stored point, when the metric has data. */
  minTimestamp?: number;
}

/**
 * The range a `fromEarliest=true` read covers: from the earliest data the metrics may hold to
 * now. Upstream took [now − the largest retention, now); here retention counts from the time a
 * point was written, so a backfill may hold older points, and the range reaches back to the
 * oldest stored point when that is earlier. Undefined when there is no metric (answered 204).
 */
export function fromEarliestRange(metrics: readonly EarliestSource[], now: number, defaultRetentionDays: number): TimeRange | undefined {
  if (metrics.length === 0) return undefined;
  let start = now;
  for (const m of metrics) {
    start = Math.min(start, now - (m.dataRetention ?? defaultRetentionDays) * DAY_MS);
    if (m.minTimestamp !== undefined) start = Math.min(start, m.minTimestamp);
  }
  return { start, end: now };
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
