import { describe, expect, it } from "vitest";
import { parseBooleanParam, parseDoubleParam, parseIntParam, parseLongParam } from "../../src/metrics/query-params.ts";
import { expectApiError } from "../helpers/api-error.ts";

describe("parseIntParam", () => {
  it("parses int32 values, signs included", () => {
    expect(parseIntParam("buckets", "60")).toBe(60);
    expect(parseIntParam("limit", "-1")).toBe(-1);
    expect(parseIntParam("limit", "+3")).toBe(3);
    expect(parseIntParam("buckets", String(2 ** 31 - 1))).toBe(2 ** 31 - 1);
    expect(parseIntParam("limit", String(-(2 ** 31)))).toBe(-(2 ** 31));
  });

  it("absent is undefined", () => {
    expect(parseIntParam("buckets", undefined)).toBeUndefined();
  });

  it.each(["999999999999999999999999", String(2 ** 31), String(-(2 ** 31) - 1), "", "1.5", "1e3", "ten", " 1", "0x10"])(
    "buckets=%s is a 400",
    (text) => {
      expectApiError(() => parseIntParam("buckets", text), 400, `Invalid value for parameter buckets: ${text}`);
    },
  );
});

describe("parseLongParam", () => {
  it("parses millisecond timestamps", () => {
    expect(parseLongParam("start", "1700000000000")).toBe(1_700_000_000_000);
    expect(parseLongParam("start", "-5")).toBe(-5);
    expect(parseLongParam("end", undefined)).toBeUndefined();
  });

  it.each(["9007199254740993", "abc", "", "1.0"])("start=%s is a 400", (text) => {
    expectApiError(() => parseLongParam("start", text), 400, `Invalid value for parameter start: ${text}`);
  });
});

describe("parseDoubleParam", () => {
  it("parses decimals", () => {
    expect(parseDoubleParam("threshold", "12.5")).toBe(12.5);
    expect(parseDoubleParam("threshold", "-3")).toBe(-3);
    expect(parseDoubleParam("threshold", "1e2")).toBe(100);
    expect(parseDoubleParam("threshold", undefined)).toBeUndefined();
  });

  it.each(["", "x", "NaN", "Infinity", "1e999"])("threshold=%s is a 400", (text) => {
    expectApiError(() => parseDoubleParam("threshold", text), 400, `Invalid value for parameter threshold: ${text}`);
  });
});

describe("parseBooleanParam", () => {
  it("accepts true and false in any case", () => {
    expect(parseBooleanParam("stacked", "true")).toBe(true);
    expect(parseBooleanParam("stacked", "TRUE")).toBe(true);
    expect(parseBooleanParam("stacked", "False")).toBe(false);
    expect(parseBooleanParam("stacked", undefined)).toBeUndefined();
  });

  it.each(["yes", "1", ""])("stacked=%j is a 400", (text) => {
    expectApiError(() => parseBooleanParam("stacked", text), 400, `Invalid value for parameter stacked: ${text}`);
  });
});
