/**
 * Large PromQL queries evaluated partly in a worker thread (collector/metrics/promql-offload.ts)
 * answer exactly what one thread answers — every bit of every value, sums folded in series
 * order — over a real SQLite store: sealed chunks, heads, rewritten timestamps, staleness
 * markers (stored NaN), gaps.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PromqlOffload } from "../../../collector/metrics/promql-offload.ts";
import { StoreSeriesSource, type StoreSeriesRef } from "../../../src/prometheus/store-source.ts";
import { parsePromQL } from "../../../src/promql/parse.ts";
import { rangeQuery } from "../../../src/promql/query.ts";
import type { SeriesSource } from "../../../src/promql/values.ts";
import { bothWays, exactly, storeWith, TENANT, type TestSeries } from "../../helpers/offload-store.ts";
import { uniform } from "../../helpers/series.ts";
import { randomSamples, randomSeries } from "../../helpers/random-series.ts";

const T0 = 1_700_000_000_000;
const STEP = 15_000;

/** 300 series of 400 samples: counters with resets and gauges, some staleness markers (NaN), some rewritten late. */
function fleet(): TestSeries[] {
  const u = uniform(17);
  const out: TestSeries[] = [];
  for (let s = 0; s < 300; s++) {
    const counter = s % 3 !== 0;
    const ts: number[] = [];
    const vals: number[] = [];
    let v = 0;
    for (let j = 0; j < 400; j++) {
      if (u() < 0.05) continue; // a missed scrape
      v = counter ? (u() < 0.01 ? 0 : v + u() * 10) : u() * 100 - 50;
      ts.push(T0 + j * STEP);
      vals.push(u() < 0.005 ? Number.NaN : v);
    }
    const late = s % 7 === 0 ? [{ ts: ts[10]!, v: 1e6 * u() }, { ts: T0 + 400 * STEP, v: v + 1 }, { ts: T0 + 401 * STEP, v: v + 2 }] : undefined;
    out.push({ name: s % 11 === 0 ? "y" : "x", labels: { host: `h${s % 13}`, idx: String(s) }, type: counter ? "counter" : "gauge", ts, vals, late });
  }
  return out;
}

const QUERIES = [
  "sum by (host) (rate(x[5m]))",
  "rate(x[2m])",
  "sum by (host) (rate({__name__=~\"x|y\"}[5m]))",
  "avg without (idx) (irate(x[1m]))",
  "max by (host) (delta(x[3m]))",
  "count by (host) (changes(x[2m]))",
  "stddev by (host) (deriv(x[2m]))",
  "sum(increase(x[10m]))",
  "sum by (host) (abs(x) * 2)",
  "min(avg_over_time(x[1m]))",
  "quantile_over_time(0.3, x[2m])",
  "sum by (host) (x)",
];

describe("queries over a real SQLite store", () => {
  let st: Awaited<ReturnType<typeof storeWith>>;
  const whole = new PromqlOffload({ takeBack: false });
  const stealing = new PromqlOffload();
  beforeAll(async () => {
    st = await storeWith(fleet());
  });
  afterAll(async () => {
    await whole.close();
    await stealing.close();
    await st.remove();
  });

  test.each(QUERIES)("%s: the worker's half folded in order equals one thread, bit for bit", async (q) => {
    const before = whole.slicesDone;
    const [one, two] = await bothWays(st.store, whole, q, T0, T0 + 402 * STEP, 60_000);
    expect(two).toEqual(one);
    expect(one).not.toHaveProperty("error");
    // The worker did the later half of the slices of 32: 4 of 9 for the 272 series named x, 5 of 10 with y's.
    expect(whole.slicesDone - before).toBe(q.includes("x|y") ? 5 : 4);
  });

  test("with slices taken back by the main thread (whatever the split), the same", async () => {
    for (const q of QUERIES.slice(0, 4)) {
      const [one, two] = await bothWays(st.store, stealing, q, T0, T0 + 402 * STEP, 30_000);
      expect(two).toEqual(one);
    }
  });

  test("a main thread slower than the worker: the worker takes more than half of the slices, the same answer", async () => {
    // Each series the main thread reads costs it 2 ms more; the worker's reads are not slowed.
    const slow: SeriesSource = {
      async select(m, start, end) {
        const refs = (await new StoreSeriesSource(st.store, TENANT).select(m, start, end)) as StoreSeriesRef[];
        return refs.map((r) => ({
          labels: r.labels,
          parts: () => r.parts(),
          read: (b) => {
            const until = performance.now() + 2;
            while (performance.now() < until) {}
            return r.read(b);
          },
        }));
      },
    };
    const q = parsePromQL(QUERIES[0]!);
    const one = await exactly(rangeQuery(q, new StoreSeriesSource(st.store, TENANT), T0, T0 + 402 * STEP, 60_000));
    const before = stealing.slicesDone;
    const two = await exactly(rangeQuery(q, slow, T0, T0 + 402 * STEP, 60_000, { offload: stealing }));
    expect(two).toEqual(one);
    // 10 slices: the main thread did the first and few more.
    expect(stealing.slicesDone - before).toBeGreaterThan(5);
  });

  test("queries at the same time: one uses the worker, the others stay on their thread; all exact", async () => {
    const qs = QUERIES.slice(0, 3);
    const single = await Promise.all(qs.map((q) => bothWays(st.store, whole, q, T0, T0 + 402 * STEP, 60_000)));
    const together = await Promise.all(
      qs.map((q) => exactly(rangeQuery(parsePromQL(q), new StoreSeriesSource(st.store, TENANT), T0, T0 + 402 * STEP, 60_000, { offload: whole }))),
    );
    expect(together).toEqual(single.map(([one]) => one));
  });

  test("a query of fewer than 200 series, or one with availability series, stays on one thread", async () => {
    const before = whole.slicesDone;
    const [one, two] = await bothWays(st.store, whole, 'sum(rate(x{host=~"h1|h2"}[5m]))', T0, T0 + 402 * STEP, 60_000);
    expect(two).toEqual(one);
    expect(whole.slicesDone).toBe(before);
  });
});

/** Random series (irregular spacing, resets, NaN, rewrites after sealing), 240–260 of them. */
const spec = randomSeries(1, 40).chain((base) =>
  fc.record({ rewrite: fc.option(fc.record({ at: fc.nat(), v: fc.double({ noNaN: true, min: -1e9, max: 1e9 }) }), { nil: undefined }) }).map((r) => ({ ...base, ...r })),
);

test("random series: the parallel path equals the single-threaded one (fast-check)", async () => {
  const off = new PromqlOffload({ takeBack: false });
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(spec, { minLength: 240, maxLength: 260 }), fc.constantFrom(...QUERIES), async (specs, q) => {
        const list: TestSeries[] = specs.map((s, k) => {
          const { ts, vals } = randomSamples(s, T0);
          const late = s.rewrite && ts.length > 0 ? [{ ts: ts[s.rewrite.at % ts.length]!, v: s.rewrite.v }] : undefined;
          return { name: k % 20 ? "x" : "y", labels: { host: s.host, idx: String(k) }, type: s.counter ? "counter" : "gauge", ts, vals, late };
        });
        const st = await storeWith(list, 16);
        try {
          const [one, two] = await bothWays(st.store, off, q, T0, T0 + 1_000_000, 20_000);
          expect(two).toEqual(one);
        } finally {
          await st.remove();
        }
      }),
      { numRuns: 12 },
    );
    expect(off.slicesDone).toBeGreaterThan(0);
  } finally {
    await off.close();
  }
}, 120_000);
