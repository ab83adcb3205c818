import { describe, expect, it } from "vitest";
import type { NumericBucketPoint } from "../../src/metrics/bucket-points.ts";
import { bucketsFromCount, bucketsFromStep } from "../../src/metrics/buckets.ts";
import { numericBucketStats } from "../../src/metrics/bucket-stats.ts";
import { dropLeadingEmpty, fromEarliestRange } from "../../src/metrics/from-earliest.ts";
import { psquarePercentile } from "../../src/metrics/psquare.ts";
import type { Order } from "../../src/metrics/series.ts";
import { percentileOf } from "../../src/metrics/percentiles-param.ts";

const T0 = 1_700_000_000_000;
const MIN = 60_000;

const p2 = (p: number, xs: readonly number[]) => psquarePercentile(xs, p);

/** Values of each bucket by the rule index = floor((ts − start) / step), in feed order. */
function byBucket(ts: number[], values: number[], start: number, step: number, count: number, feed: Order) {
  const groups: number[][] = Array.from({ length: count }, () => []);
  for (let i = 0; i < ts.length; i++) {
    const idx = Math.floor((ts[i]! - start) / step);
    if (idx >= 0 && idx < count) groups[idx]!.push(values[i]!);
  }
  return feed === "asc" ? groups : groups.map((g) => g.reverse());
}

function nonEmpty(p: NumericBucketPoint | undefined) {
  if (p === undefined || p.empty) throw new Error("expected a non-empty bucket");
  return p;
}

describe("numericBucketStats", () => {
  // 90 points, one a minute, irregular values; 4 buckets of 30 min over 2 h: the last two
  // buckets get 30 and 0 points after the data ends at +90 min.
  const ts = Array.from({ length: 90 }, (_, i) => T0 + i * MIN);
  const values = ts.map((_, i) => Math.round((Math.sin(i * 1.7) * 40 + 50 + (i % 7) * 3) * 10) / 10);
  const buckets = bucketsFromCount(T0, T0 + 120 * MIN, 4);

  for (const feed of ["asc", "desc"] as const) {
    it(`computes each bucket from its own points (feed ${feed})`, () => {
      const out = numericBucketStats({ ts, values }, buckets, { feedOrder: feed, percentiles: [90, 99.9].map(percentileOf) });
      const groups = byBucket(ts, values, buckets.start, buckets.step, buckets.count, feed);
      expect(out).toHaveLength(buckets.count);
      out.forEach((point, b) => {
        const start = buckets.start + b * buckets.step;
        expect(point.start).toBe(start);
        expect(point.end).toBe(start + buckets.step);
        const g = groups[b]!;
        if (g.length === 0) {
          expect(point).toEqual({ start, end: start + buckets.step, empty: true });
          return;
        }
        const p = nonEmpty(point);
        expect(p.samples).toBe(g.length);
        expect(p.min).toBe(Math.min(...g));
        expect(p.max).toBe(Math.max(...g));
        expect(p.sum).toBeCloseTo(g.reduce((a, v) => a + v, 0), 9);
        expect(p.avg).toBeCloseTo(g.reduce((a, v) => a + v, 0) / g.length, 9);
        expect(p.median).toBe(p2(50, g));
        expect(p.percentiles).toEqual([
          { quantile: 90, originalQuantile: "90", value: p2(90, g) },
          { quantile: 99.9, originalQuantile: "99.9", value: p2(99.9, g) },
        ]);
      });
      expect(out.map((p) => p.empty)).toEqual([false, false, false, true]);
    });
  }

  it("feeds the estimators in the requested order", () => {
    const asc = nonEmpty(numericBucketStats({ ts, values }, buckets, { feedOrder: "asc" })[0]);
    const desc = nonEmpty(numericBucketStats({ ts, values }, buckets, { feedOrder: "desc" })[0]);
    const g = byBucket(ts, values, buckets.start, buckets.step, buckets.count, "asc")[0]!;
    expect(asc.median).toBe(p2(50, g));
    expect(desc.median).toBe(p2(50, [...g].reverse()));
    expect(asc.median).not.toBe(desc.median);
  });

  it("avg is sum / samples, the sum added in feed order", () => {
    const g = byBucket(ts, values, buckets.start, buckets.step, buckets.count, "desc")[1]!;
    let sum = 0;
    for (const v of g) sum += v;
    const p = nonEmpty(numericBucketStats({ ts, values }, buckets, { feedOrder: "desc" })[1]);
    expect(p.sum).toBe(sum);
    expect(p.avg).toBe(sum / g.length);
  });

  it("omits percentiles when none were requested", () => {
    const p = nonEmpty(numericBucketStats({ ts, values }, buckets, { feedOrder: "asc" })[0]);
    expect("percentiles" in p).toBe(false);
    expect(Object.keys(p)).toEqual(["start", "end", "min", "avg", "median", "max", "sum", "samples", "empty"]);
  });

  it("median of two samples is the lower one (172.6 of 172.6 and 198.6)", () => {
    const b = bucketsFromStep(T0, T0 + 10 * MIN, 10 * MIN);
    for (const feed of ["asc", "desc"] as const) {
      const p = nonEmpty(
        numericBucketStats({ ts: [T0, T0 + MIN], values: [198.6, 172.6] }, b, { feedOrder: feed, percentiles: [percentileOf(50)] })[0],
      );
      expect(p.median).toBe(172.6);
      expect(p.percentiles).toEqual([{ quantile: 50, originalQuantile: "50", value: 172.6 }]);
      expect(p.samples).toBe(2);
    }
  });

  it("ignores points outside the buckets", () => {
    const b = bucketsFromStep(T0, T0 + 10 * MIN, 5 * MIN);
    const out = numericBucketStats(
      { ts: [T0 - 1, T0, T0 + 5 * MIN, T0 + 10 * MIN], values: [100, 1, 2, 100] },
      b,
      { feedOrder: "asc" },
    );
    expect(out.map((p) => (p.empty ? null : p.max))).toEqual([1, 2]);
  });

  it("all buckets empty without points", () => {
    const b = bucketsFromCount(T0, T0 + 60 * MIN, 3);
    const out = numericBucketStats({ ts: [], values: [] }, b, { feedOrder: "desc" });
    expect(out).toEqual([0, 1, 2].map((i) => ({ start: T0 + i * b.step, end: T0 + (i + 1) * b.step, empty: true })));
  });

  it("accepts typed arrays", () => {
    const b = bucketsFromCount(T0, T0 + 60 * MIN, 1);
    const out = numericBucketStats({ ts: Float64Array.of(T0, T0 + MIN), values: Float64Array.of(4, 6) }, b, {
      feedOrder: "asc",
    });
    expect(nonEmpty(out[0]).sum).toBe(10);
  });
});

describe("fromEarliest", () => {
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;

  it("uses the retention window and drops leading empty buckets: [3, 2, null, null]", () => {
    // Counter points at the current hour −3 h (value 3) and −2 h (value 2), asked 25 min
    // into the hour with bucketDuration=1h and the default retention of 7 days.
    const hour = Math.floor(T0 / HOUR) * HOUR;
    const now = hour + 25 * MIN;
    const range = fromEarliestRange([{ dataRetention: 7, minTimestamp: hour - 3 * HOUR }], now, 7)!;
    expect(range).toEqual({ start: now - 7 * DAY, end: now });
    const buckets = bucketsFromStep(range.start, range.end, HOUR);
    const all = numericBucketStats({ ts: [hour - 3 * HOUR, hour - 2 * HOUR], values: [3, 2] }, buckets, {
      feedOrder: "asc",
    });
    const out = dropLeadingEmpty(all);
    expect(out).toHaveLength(4);
    const field = (k: "min" | "max" | "avg") => out.map((p) => (p.empty ? null : p[k]));
    expect(field("min")).toEqual([3, 2, null, null]);
    expect(field("max")).toEqual([3, 2, null, null]);
    expect(field("avg")).toEqual([3, 2, null, null]);
    expect(out[0]!.start).toBe(now - 4 * HOUR);
  });

  it("all empty gives an empty list", () => {
    const b = bucketsFromCount(T0, T0 + 60 * MIN, 3);
    expect(dropLeadingEmpty(numericBucketStats({ ts: [], values: [] }, b, { feedOrder: "asc" }))).toEqual([]);
  });

  it("keeps empty buckets after the first one with data", () => {
    const points = [{ empty: true }, { empty: false }, { empty: true }, { empty: false }, { empty: true }];
    expect(dropLeadingEmpty(points)).toEqual(points.slice(1));
  });

  it("reaches back to the oldest stored point when it is older than the retention (a backfill), over the largest retention", () => {
    const now = T0;
    expect(fromEarliestRange([{ minTimestamp: now - 30 * DAY }], now, 7)).toEqual({ start: now - 30 * DAY, end: now });
    expect(fromEarliestRange([{ dataRetention: 3 }, { dataRetention: 14, minTimestamp: now - DAY }], now, 7)).toEqual({
      start: now - 14 * DAY,
      end: now,
    });
    expect(fromEarliestRange([{}], now, 7)).toEqual({ start: now - 7 * DAY, end: now });
  });

  it("no metric: nothing to read", () => {
    expect(fromEarliestRange([], T0, 7)).toBeUndefined();
  });
});
