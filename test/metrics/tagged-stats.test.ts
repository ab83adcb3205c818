import { describe, expect, it } from "vitest";
import type { Tags } from "../../src/metrics/model.ts";
import { psquarePercentile } from "../../src/metrics/psquare.ts";
import { parseTagList } from "../../src/metrics/tag-list.ts";
import { taggedStats } from "../../src/metrics/tagged-stats.ts";
import { expectApiError } from "../helpers/api-error.ts";
import { percentileOf } from "../../src/metrics/percentiles-param.ts";

const T0 = 1_700_000_000_000;

const points: { v: number; tags?: Tags }[] = [
  { v: 10, tags: { host: "a", dc: "eu", x: "1" } },
  { v: 20, tags: { host: "b", dc: "eu" } },
  { v: 30, tags: { host: "a", dc: "us" } },
  { v: 40 },
  { v: 50, tags: { host: "a", dc: "eu" } },
  { v: 60, tags: { dc: "eu" } },
  { v: 70, tags: { host: "c", dc: "eu" } },
  { v: 80, tags: { host: "a", dc: "eu" } },
  { v: 90, tags: { host: "b", dc: "eu" } },
];
const series = {
  ts: points.map((_, i) => T0 + i * 1000),
  values: points.map((p) => p.v),
  tags: points.map((p) => p.tags),
};

const p2 = (p: number, xs: readonly number[]) => psquarePercentile(xs, p);

describe("taggedStats", () => {
  it("filters by point tags, groups by the named tags' values, keys 'k1:v1,k2:v2'", () => {
    const out = taggedStats(series, parseTagList("host:a|b,dc:eu"), { feedOrder: "asc", percentiles: [percentileOf(90)] });
    expect(Object.keys(out).sort()).toEqual(["host:a,dc:eu", "host:b,dc:eu"]);
    for (const host of ["a", "b"]) {
      const group = points.filter((p) => p.tags?.host === host && p.tags?.dc === "eu").map((p) => p.v);
      const sum = group.reduce((a, v) => a + v, 0);
      const g = out[`host:${host},dc:eu`]!;
      expect(g.tags).toEqual({ host, dc: "eu" });
      expect(g.samples).toBe(group.length);
      expect(g.min).toBe(Math.min(...group));
      expect(g.max).toBe(Math.max(...group));
      expect(g.sum).toBe(sum);
      expect(g.avg).toBeCloseTo(sum / group.length, 12);
      expect(g.median).toBe(p2(50, group));
      expect(g.percentiles).toEqual([{ quantile: 90, originalQuantile: "90", value: p2(90, group) }]);
    }
  });

  it("a point lacking a named tag is left out, even for * filters", () => {
    const out = taggedStats(series, parseTagList("host:*"), { feedOrder: "asc" });
    expect(Object.keys(out).sort()).toEqual(["host:a", "host:b", "host:c"]);
    const total = Object.values(out).reduce((a, g) => a + g.samples, 0);
    expect(total).toBe(points.filter((p) => p.tags?.host !== undefined).length);
  });

  it("negated filters keep the other values", () => {
    const out = taggedStats(series, parseTagList("host:!a"), { feedOrder: "asc" });
    expect(Object.keys(out).sort()).toEqual(["host:b", "host:c"]);
  });

  it("feeds the estimators in the requested order", () => {
    const many = Array.from({ length: 40 }, (_, i) => ((i * 37) % 23) + (i % 5) * 0.5);
    const s = { ts: many.map((_, i) => T0 + i), values: many, tags: many.map(() => ({ k: "v" })) };
    const asc = taggedStats(s, parseTagList("k:v"), { feedOrder: "asc" })["k:v"]!;
    const desc = taggedStats(s, parseTagList("k:v"), { feedOrder: "desc" })["k:v"]!;
    expect(asc.median).toBe(p2(50, many));
    expect(desc.median).toBe(p2(50, [...many].reverse()));
  });

  it("no matching point gives an empty map", () => {
    expect(taggedStats(series, parseTagList("host:zzz"), { feedOrder: "asc" })).toEqual({});
  });

  it("a series without point tags matches nothing", () => {
    const bare = { ts: series.ts, values: series.values };
    expect(taggedStats(bare, parseTagList("host:*"), { feedOrder: "asc" })).toEqual({});
  });

  it("an invalid expression is a 400", () => {
    expectApiError(() => taggedStats(series, parseTagList("host:**"), { feedOrder: "asc" }), 400, /Invalid regular expression/);
  });
});
