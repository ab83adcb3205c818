import { describe, expect, it } from "vitest";
import type { NumericBucketPoint } from "../../src/metrics/bucket-points.ts";
import { bucketsFromCount } from "../../src/metrics/buckets.ts";
import { numericBucketStats } from "../../src/metrics/bucket-stats.ts";
import { mergeSeries } from "../../src/metrics/series.ts";
import { stackBuckets } from "../../src/metrics/stacked.ts";
import { percentileOf } from "../../src/metrics/percentiles-param.ts";

const T0 = 1_700_000_000_000;
const MIN = 60_000;
const buckets = bucketsFromCount(T0, T0 + 30 * MIN, 3);

// Metric a has data in buckets 0 and 1, metric b in buckets 1 and 2 (10-minute buckets).
const a = { ts: [T0, T0 + 2 * MIN, T0 + 11 * MIN], values: [1, 5, 7] };
const b = { ts: [T0 + 12 * MIN, T0 + 15 * MIN, T0 + 25 * MIN], values: [10, 30, 4] };

describe("stackBuckets", () => {
  const perMetric = [a, b].map((s) => numericBucketStats(s, buckets, { feedOrder: "desc", percentiles: [percentileOf(90)] }));
  const stacked = stackBuckets(perMetric, buckets);

  it("sums min, avg, median, max and sum of the non-empty buckets; samples counts metrics", () => {
    expect(stacked).toHaveLength(3);
    for (let i = 0; i < 3; i++) {
      const parts = perMetric.map((list) => list[i]!).filter((p): p is Exclude<NumericBucketPoint, { empty: true }> => !p.empty);
      const total = (k: "min" | "avg" | "median" | "max" | "sum") => parts.reduce((acc, p) => acc + p[k], 0);
      expect(stacked[i]).toEqual({
        start: T0 + i * buckets.step,
        end: T0 + (i + 1) * buckets.step,
        min: total("min"),
        avg: total("avg"),
        median: total("median"),
        max: total("max"),
        sum: total("sum"),
        samples: parts.length,
        empty: false,
        percentiles: [{ quantile: 90, originalQuantile: "90", value: parts.reduce((acc, p) => acc + p.percentiles![0]!.value, 0) }],
      });
    }
    // Bucket 1 has both metrics: min 7 + 10, max 7 + 30.
    const middle = stacked[1]!;
    expect(middle.empty ? null : [middle.min, middle.max, middle.samples]).toEqual([17, 37, 2]);
  });

  it("adds up the percentiles of the metrics, and has none when none were asked for", () => {
    const middle = stacked[1]!;
    const [pa, pb] = perMetric.map((list) => list[1]!);
    if (middle.empty || pa!.empty || pb!.empty) throw new Error("bucket 1 has data in both metrics");
    expect(middle.percentiles).toEqual([{ quantile: 90, originalQuantile: "90", value: pa!.percentiles![0]!.value + pb!.percentiles![0]!.value }]);
    const plain = stackBuckets([a, b].map((s) => numericBucketStats(s, buckets, { feedOrder: "desc" })), buckets);
    for (const p of plain) expect("percentiles" in p).toBe(false);
  });

  it("a bucket where no metric has data adds up nothing: zeros, and empty (upstream's SumNumericBucketPointCollector)", () => {
    const late = bucketsFromCount(T0, T0 + 40 * MIN, 4);
    const out = stackBuckets([numericBucketStats(a, late, { feedOrder: "desc" })], late);
    expect(out[3]).toEqual({ start: T0 + 30 * MIN, end: T0 + 40 * MIN, min: 0, avg: 0, median: 0, max: 0, sum: 0, empty: true });
  });

  it("no metrics: every bucket empty", () => {
    expect(stackBuckets([], buckets).every((p) => p.empty)).toBe(true);
  });
});

describe("mergeSeries (stacked=false pools all points)", () => {
  it("merges ascending series into one ascending series", () => {
    const merged = mergeSeries([a, b, { ts: [T0 + MIN], values: [99] }]);
    const pairs = [a, b, { ts: [T0 + MIN], values: [99] }]
      .flatMap((s) => s.ts.map((t, i) => [t, s.values[i]!] as const))
      .sort((x, y) => x[0] - y[0]);
    expect([...merged.ts]).toEqual(pairs.map((p) => p[0]));
    expect([...merged.values]).toEqual(pairs.map((p) => p[1]));
  });

  it("keeps the input order for equal timestamps", () => {
    const merged = mergeSeries([
      { ts: [1, 2], values: [10, 20] },
      { ts: [2, 3], values: [21, 30] },
      { ts: [2], values: [22] },
    ]);
    expect([...merged.ts]).toEqual([1, 2, 2, 2, 3]);
    expect([...merged.values]).toEqual([10, 20, 21, 22, 30]);
  });

  it("handles no series and single series", () => {
    expect(mergeSeries([]).ts).toHaveLength(0);
    expect([...mergeSeries([a]).values]).toEqual(a.values);
  });

  it("pooled stats equal the stats of the pooled points", () => {
    const pooled = numericBucketStats(mergeSeries([a, b]), buckets, { feedOrder: "desc" });
    const middle = pooled[1]!;
    expect(middle.empty ? null : [middle.min, middle.max, middle.samples, middle.sum]).toEqual([7, 30, 3, 47]);
  });
});
