/**
 * The fast paths of range queries against the straightforward evaluation, on random series:
 * series-by-series evaluation (plan.ts, stream.ts) against loading every series first, the
 * sliding window of range functions against one instant query per step, and the prefix counts
 * of rate/resets/changes against walking each window.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { labelsFromRecord } from "../../src/promql/labels.ts";
import { parsePromQL } from "../../src/promql/parse.ts";
import { instantQuery, type QueryResult, rangeQuery } from "../../src/promql/query.ts";
import { extrapolatedRateSteps, PREFIX_COUNTS, prefixCounts, RANGE_FUNCTIONS, type Window } from "../../src/promql/range-functions.ts";
import { MemorySource } from "../helpers/promql.ts";
import { type RandomSeries, randomSamples, randomSeries } from "../helpers/random-series.ts";

const STEP = 15_000;

const series = randomSeries(0, 120);

function source(list: RandomSeries[]): MemorySource {
  const src = new MemorySource();
  list.forEach((s, k) => {
    const { ts, vals } = randomSamples(s, 0);
    // Even series carry the metric name x, odd ones y: name-dropping can then make twins.
    const name = k % 2 ? "y" : "x";
    src.series.push({ labels: labelsFromRecord({ __name__: name, host: s.host, idx: String(k >> 1) }), ts: Float64Array.from(ts), vals: Float64Array.from(vals) });
  });
  return src;
}

const QUERIES = [
  "rate(x[1m])",
  "increase({__name__=~\"x|y\"}[2m])",
  "sum by (host) (rate(x[1m]))",
  "avg without (idx) (irate(x[1m]))",
  "max by (host) (delta(x[90s]))",
  "min(resets(x[3m]))",
  "count by (host) (changes({host=~\"a|b\"}[2m]))",
  "stddev by (host) (deriv(x[2m]))",
  "stdvar(avg_over_time(x[1m]))",
  "group by (host) (x)",
  "sum by (host) (abs(x) * 2)",
  "-sum_over_time(x[45s]) / 3",
  "quantile_over_time(0.3, x[2m])",
  "round(max_over_time(x[1m]), 0.5) > bool 10",
  "sum by (host) ({__name__=~\"x|y\"})",
  "count(last_over_time(x[1m]))",
  "sum by (host) (increase(x[2m] offset 1m))",
  "avg(delta(x[1m] offset -30s))",
  "max by (host) (rate(x[2m] @ 900))",
  "sum without (idx) (rate({__name__=~\"x|y\"}[30s]))",
  "count by (host) (present_over_time(x[20s]))",
  "sum by (host) (rate(x[1m]) * 60)",
];

const plain = (r: QueryResult) => (r.resultType === "matrix" ? r.result.map((s) => ({ l: s.labels, t: Array.from(s.ts), v: Array.from(s.vals, String) })) : r);
/** The result with every value exactly (as strings: NaN, -0 kept), or the error it ends in. */
const outcome = (p: Promise<QueryResult>) => p.then((r) => JSON.stringify(plain(r)), (e: Error) => `error: ${e.message}`);
const same = async (a: Promise<QueryResult>, b: Promise<QueryResult>) => expect(await outcome(a)).toBe(await outcome(b));

describe("series-by-series evaluation", () => {
  it("gives exactly the results of loading every series first (range and instant queries)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(series, { maxLength: 24 }), fc.constantFrom(...QUERIES), fc.integer({ min: 0, max: 4000 }), async (list, q, at) => {
        const src = source(list);
        const e = parsePromQL(q);
        const [start, end] = [30_000, 30_000 + 200 * STEP];
        await same(rangeQuery(e, src, start, end, STEP), rangeQuery(e, src, start, end, STEP, { streaming: false }));
        await same(instantQuery(e, src, at * 1000), instantQuery(e, src, at * 1000, { streaming: false }));
      }),
      { numRuns: 300 },
    );
  });

  it("refuses overlapping series that lose their names as the full evaluation does", async () => {
    const src = new MemorySource().load("15s", 'x{host="a"} 1+1x20\n y{host="a"} 5+2x20');
    for (const streaming of [true, false]) {
      await expect(rangeQuery(parsePromQL('rate({__name__=~"x|y"}[1m])'), src, 60_000, 240_000, 15_000, { streaming })).rejects.toThrow(/same labelset/);
    }
  });

  it("applies the sample limit while streaming", async () => {
    const src = new MemorySource().load("15s", 'x{host="a"} 1+1x200\n x{host="b"} 1+1x200');
    await expect(rangeQuery(parsePromQL("sum(rate(x[1m]))"), src, 0, 3_000_000, 15_000, { maxSamples: 300 })).rejects.toThrow(/too many samples/);
  });
});

describe("range functions over a sliding window", () => {
  it("equal one instant query per step", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(series, { minLength: 1, maxLength: 4 }), fc.constantFrom("rate", "increase", "resets", "changes", "delta", "irate", "avg_over_time", "min_over_time"), async (list, fn) => {
        const src = source(list);
        const e = parsePromQL(`${fn}(x[75s])`);
        const r = await rangeQuery(e, src, 0, 100 * STEP, STEP);
        if (r.resultType !== "matrix") throw new Error("matrix expected");
        for (let t = 0; t <= 100 * STEP; t += STEP) {
          const inst = await instantQuery(e, src, t);
          if (inst.resultType !== "vector") throw new Error("vector expected");
          const fromRange = r.result.flatMap((s) => {
            const i = s.ts.indexOf(t);
            return i < 0 ? [] : [`${JSON.stringify(s.labels)} ${s.vals[i]}`];
          });
          expect(fromRange.sort()).toEqual(inst.result.map((s) => `${JSON.stringify(s.labels)} ${s.v}`).sort());
        }
      }),
      { numRuns: 60 },
    );
  });

  it("rate, increase and delta in one loop over the steps equal the per-window function", () => {
    const value = fc.oneof(fc.integer({ min: 0, max: 9 }), fc.double({ min: -50, max: 50, noNaN: true }), fc.constant(Number.NaN));
    // Half the gaps 15 s: runs of equally placed windows (the loop reuses their extrapolation).
    const sample = fc.tuple(fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(15)), value);
    // Window ends: ascending steps (with offsets shifting them), or one time repeated (@).
    const ends = fc.oneof(
      fc.tuple(fc.integer({ min: -20, max: 60 }), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 1, max: 80 })).map(([s, step, n]) => Float64Array.from({ length: n }, (_v, i) => (s + i * step) * 1000)),
      fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 1, max: 5 })).map(([t, n]) => new Float64Array(n).fill(t * 1000)),
    );
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 80 }), ends, fc.integer({ min: 1, max: 120 }), fc.constantFrom("rate", "increase", "delta"), (samples, endTimes, rangeS, fn) => {
        let t = 0;
        const ts = Float64Array.from(samples, ([gap]) => (t += gap * 1000));
        const vals = Float64Array.from(samples, ([, v]) => v);
        const range = rangeS * 1000;
        const counts = new Int32Array(Math.max(1, ts.length));
        if (PREFIX_COUNTS[fn]) prefixCounts(vals, PREFIX_COUNTS[fn], counts);
        const out = { vals: new Float64Array(endTimes.length), has: new Uint8Array(endTimes.length) };
        const any = extrapolatedRateSteps(ts, vals, endTimes, range, fn, out);
        const expected = Array.from(endTimes, (end) => {
          let lo = 0;
          while (lo < ts.length && ts[lo]! <= end - range) lo++;
          let hi = lo;
          while (hi < ts.length && ts[hi]! <= end) hi++;
          if (hi === lo) return undefined;
          return RANGE_FUNCTIONS[fn]!({ ts, vals, lo, hi, start: end - range, end, range, param: 0, evalTime: end, counts });
        });
        const got = Array.from(endTimes, (_e, i) => (out.has[i] ? out.vals[i] : undefined));
        expect(got.map(String)).toEqual(expected.map(String));
        expect(any).toBe(expected.some((v) => v !== undefined));
      }),
      { numRuns: 3000 },
    );
  });

  it("prefix counts give what walking each window gives", () => {
    const values = fc.array(fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constant(Number.NaN)), { minLength: 1, maxLength: 60 });
    fc.assert(
      fc.property(values, fc.nat(), fc.nat(), fc.constantFrom("rate", "increase", "resets", "changes"), (vs, a, b, fn) => {
        const vals = Float64Array.from(vs);
        const ts = Float64Array.from(vs, (_v, i) => (i + 1) * 1000);
        const lo = a % vals.length;
        const hi = lo + 1 + (b % (vals.length - lo));
        const counts = new Int32Array(vals.length);
        prefixCounts(vals, PREFIX_COUNTS[fn]!, counts);
        // Counts that differ everywhere make every window walk its samples, as before the prefix counts.
        const walkAll = Int32Array.from(vals, (_v, i) => i);
        const w = (c: Int32Array): Window => ({ ts, vals, lo, hi, start: ts[lo]! - 500, end: ts[hi - 1]!, range: 60_000, param: 0, evalTime: ts[hi - 1]!, counts: c });
        const naive: Record<string, () => number | undefined> = {
          resets: () => vs.slice(lo, hi).filter((v, i, s) => i > 0 && v < s[i - 1]!).length,
          changes: () => vs.slice(lo, hi).filter((v, i, s) => i > 0 && v !== s[i - 1] && !(Number.isNaN(v) && Number.isNaN(s[i - 1]!))).length,
          rate: () => RANGE_FUNCTIONS.rate!(w(walkAll)),
          increase: () => RANGE_FUNCTIONS.increase!(w(walkAll)),
        };
        expect(Object.is(RANGE_FUNCTIONS[fn]!(w(counts)), naive[fn]!())).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
