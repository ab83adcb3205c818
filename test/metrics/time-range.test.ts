import { describe, expect, it } from "vitest";
import { parseTimeParam, resolveTimeRange } from "../../src/metrics/time-range.ts";
import { expectApiError } from "../helpers/api-error.ts";

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;

describe("resolveTimeRange", () => {
  it("defaults to the last 8 hours", () => {
    expect(resolveTimeRange(undefined, undefined, NOW)).toEqual({ start: NOW - 8 * HOUR, end: NOW });
  });

  it("defaults each bound separately, relative to now (not to the other bound)", () => {
    expect(resolveTimeRange(NOW - HOUR, undefined, NOW)).toEqual({ start: NOW - HOUR, end: NOW });
    expect(resolveTimeRange(undefined, NOW - HOUR, NOW)).toEqual({ start: NOW - 8 * HOUR, end: NOW - HOUR });
  });

  it("an end before the default start is a 400", () => {
    expectApiError(() => resolveTimeRange(undefined, NOW - 9 * HOUR, NOW), 400, "Range end must be strictly greater than start");
  });

  it("keeps explicit bounds", () => {
    expect(resolveTimeRange(10, 20, NOW)).toEqual({ start: 10, end: 20 });
  });

  it.each([
    [20, 20],
    [20, 10],
  ])("end ≤ start (%d, %d) is a 400", (start, end) => {
    expectApiError(() => resolveTimeRange(start, end, NOW), 400, "Range end must be strictly greater than start");
  });

  it("a start after the default end is a 400", () => {
    expectApiError(() => resolveTimeRange(NOW + 1, undefined, NOW), 400, "Range end must be strictly greater than start");
  });
});

describe("parseTimeParam", () => {
  it("reads milliseconds as numbers or digit strings, signed ones included", () => {
    expect(parseTimeParam("start", "1500000000000", NOW)).toBe(1_500_000_000_000);
    expect(parseTimeParam("start", 42, NOW)).toBe(42);
    expect(parseTimeParam("start", "-5", NOW)).toBe(-5);
    expect(parseTimeParam("start", undefined, NOW)).toBeUndefined();
    expect(parseTimeParam("start", " ", NOW)).toBeUndefined();
  });

  it("reads a sign and a duration as a time relative to now (0.2x)", () => {
    expect(parseTimeParam("start", "-11mn", NOW)).toBe(NOW - 11 * 60_000);
    expect(parseTimeParam("end", "+1h", NOW)).toBe(NOW + HOUR);
    expect(parseTimeParam("end", "-30s", NOW)).toBe(NOW - 30_000);
    expect(parseTimeParam("end", "-2d", NOW)).toBe(NOW - 48 * HOUR);
  });

  it.each(["-1w", "11mn", "abc", "1.5", "--1h", "-1h2"])("%j is a 400 naming the parameter", (text) => {
    expectApiError(() => parseTimeParam("start", text, NOW), 400, /^start must be a timestamp/);
  });
});
