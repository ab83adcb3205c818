import { describe, expect, it } from "vitest";
import { alignSeries, bucketsOf, isBucketed, parseRef, RAW_MAX_MS, refText, resolveRange, stateSegments } from "../../collector/http/console/web/pages/metrics-model.ts";

describe("metrics view state", () => {
  it("names a metric by type and id, colons in the id included", () => {
    expect(parseRef("gauge:web-1:cpu_usage_percent:total")).toEqual({ type: "gauge", id: "web-1:cpu_usage_percent:total" });
    expect(refText({ type: "counter", id: "a:b" })).toBe("counter:a:b");
    expect(parseRef("histogram:x")).toBeUndefined();
    expect(parseRef("gauge:")).toBeUndefined();
  });

  it("reads a named range ending now, or fixed bounds; long ranges are bucketed", () => {
    const now = 1_000_000_000_000;
    expect(resolveRange(new URLSearchParams("range=24h"), now)).toEqual([now - 86_400_000, now]);
    expect(resolveRange(new URLSearchParams(""), now)).toEqual([now - 3_600_000, now]);
    expect(resolveRange(new URLSearchParams("from=10&to=20&range=24h"), now)).toEqual([10, 20]);
    expect(resolveRange(new URLSearchParams("from=20&to=10"), now)).toEqual([now - 3_600_000, now]);
    expect(isBucketed([0, RAW_MAX_MS])).toBe(false);
    expect(isBucketed([0, RAW_MAX_MS + 1])).toBe(true);
  });
});

describe("buckets of long ranges", () => {
  it("are whole rollup steps on their own grid, at most 300 of them", () => {
    const now = Date.UTC(2026, 10, 24, 13, 37, 11);
    const day = 86_400_000;
    expect(bucketsOf([now - 7 * day, now])).toEqual({ start: Date.UTC(2026, 10, 17, 13), step: 3_600_000 });
    expect(bucketsOf([now - 30 * day, now])).toEqual({ start: Date.UTC(2026, 9, 25, 12), step: 3 * 3_600_000 });
    expect(bucketsOf([now - 365 * day, now])).toEqual({ start: Math.floor((now - 365 * day) / (2 * day)) * 2 * day, step: 2 * day });
    for (const span of [7 * 3_600_000, day, 90 * day, 3 * 365 * day]) {
      const b = bucketsOf([now - span, now]);
      expect(Math.ceil((now - b.start) / b.step)).toBeLessThanOrEqual(301);
      expect(b.start % b.step).toBe(0);
    }
  });
});

describe("several series on one axis", () => {
  it("joins their timestamps, each series empty where it has no point", () => {
    const d = alignSeries(["a", "b"], [
      { ts: [1, 3], values: [10, 30] },
      { ts: [2, 3], values: [20, 33], min: [19, 32], max: [21, 34] },
    ]);
    expect(d.x).toEqual([1, 2, 3]);
    expect(d.lines[0]).toEqual({ label: "a", values: [10, null, 30], min: undefined, max: undefined });
    expect(d.lines[1]).toEqual({ label: "b", values: [null, 20, 33], min: [null, 19, 32], max: [null, 21, 34] });
  });
});

describe("availability as stretches", () => {
  it("starts with the state before the range, cuts at each change, merges repeats, and runs to the end", () => {
    const segs = stateSegments({ timestamp: 0, value: "up" }, [
      { timestamp: 20, value: "down" },
      { timestamp: 30, value: "down" },
      { timestamp: 50, value: "up" },
    ], [10, 100]);
    expect(segs).toEqual([
      { start: 10, end: 20, state: "up" },
      { start: 20, end: 50, state: "down" },
      { start: 50, end: 100, state: "up" },
    ]);
  });

  it("knows nothing before the first point when nothing came before the range", () => {
    expect(stateSegments(undefined, [{ timestamp: 40, value: "unknown" }], [10, 100])).toEqual([{ start: 40, end: 100, state: "unknown" }]);
    expect(stateSegments(undefined, [], [10, 100])).toEqual([]);
  });
});

describe("metric search", () => {
  it("looks for the text anywhere in an id, as a regular expression when it is one", async () => {
    const { idMatcher } = await import("../../collector/http/console/web/pages/metrics-model.ts");
    expect(idMatcher("CPU_usage")("web-1:cpu_usage_percent:total")).toBe(true);
    expect(idMatcher("web-[0-9]+:load")("web-12:load1")).toBe(true);
    expect(idMatcher("web-[0-9]+:load")("db-1:load1")).toBe(false);
    // Not a regular expression: plain text.
    expect(idMatcher("cpu[")("x:cpu[0]")).toBe(true);
  });
});
