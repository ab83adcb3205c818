import { ApiError } from "../http/errors.ts";

export interface TimeRange {
  /** Inclusive, ms. */
  start: number;
  /** Exclusive, ms. */
  end: number;
}

export const DEFAULT_RANGE_MS = 8 * 3_600_000;
export const RANGE_END_MESSAGE = "Range end must be strictly greater than start";

/** Applies the defaults (now − 8 h, now) and requires end > start, as the spec's Limits say. */
export function resolveTimeRange(start: number | undefined, end: number | undefined, now: number): TimeRange {
  const range = { start: start ?? now - DEFAULT_RANGE_MS, end: end ?? now };
  if (range.end <= range.start) throw new ApiError(400, RANGE_END_MESSAGE);
  return range;
}
