import { describe, expect, it } from "vitest";
import { parseDuration } from "../../src/metrics/duration.ts";
import { expectApiError } from "../helpers/api-error.ts";

describe("parseDuration", () => {
  it.each([
    ["250ms", 250],
    ["10s", 10 * 1000],
    ["10mn", 10 * 60 * 1000],
    ["3h", 3 * 60 * 60 * 1000],
    ["7d", 7 * 24 * 60 * 60 * 1000],
    ["0ms", 0],
    ["007s", 7000],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(["1w", "5m", "", "ms", "-5s", "1.5h", " 1h", "1h ", "1H", "1 h", "1hh", "1e3ms"])(
    "%j is a 400 naming the value",
    (text) => {
      expectApiError(() => parseDuration(text), 400, `Invalid duration ${text}`);
    },
  );

  it("rejects lengths whose milliseconds are not a safe integer", () => {
    const days = Math.ceil(Number.MAX_SAFE_INTEGER / 86_400_000) + 1;
    expectApiError(() => parseDuration(`${days}d`), 400, `Invalid duration ${days}d`);
    expectApiError(() => parseDuration("99999999999999999999ms"), 400, /Invalid duration/);
  });
});
