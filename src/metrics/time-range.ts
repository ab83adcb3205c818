import { ApiError } from "../http/errors.ts";
import { parseDuration } from "./duration.ts";

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

const INTEGER = /^[+-]?\d+$/;
const RELATIVE = /^([+-])\s*(\d+(?:ms|s|mn|h|d))$/;

/**
 * A `start` or `end` value: milliseconds since the epoch (a number, or a string of digits), or
 * a time relative to now, a sign and a duration (`-11mn` is 11 minutes ago, `+1h` an hour
 * ahead; Hawkular Metrics from 0.2x on). Absent or blank gives undefined. A signed number
 * without a unit stays an absolute timestamp (upstream refused it). Anything else is a 400.
 */
export function parseTimeParam(name: string, value: string | number | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === "number" ? String(value) : value.trim();
  if (text === "") return undefined;
  let t: number;
  if (INTEGER.test(text)) t = Number(text);
  else {
    const m = RELATIVE.exec(text);
    if (m === null) throw new ApiError(400, `${name} must be a timestamp in ms or a relative time such as -11mn, got '${value}'`);
    const offset = parseDuration(m[2]!);
    t = m[1] === "-" ? now - offset : now + offset;
  }
  if (!Number.isSafeInteger(t)) throw new ApiError(400, `${name} is out of range: '${value}'`);
  return t;
}
