/**
 * PromQL range functions over long windows answered from the rollup tiers give what the raw
 * samples give (the evaluator without tiers, `streaming: false`, is the reference): every
 * function the tiers serve, under aggregations, with windows on the tiers' grid and off it,
 * over random series with gaps, counter resets, NaN and late rewrites, on SQLite and PostgreSQL.
 * Exact within float rounding; quantile_over_time within the sketch's stated 1 %: of the answer
 * where the two samples it interpolates between share a sign, of their magnitudes where they do
 * not (docs/storage.md, "The sketch"), so at most 1 % of the series' largest magnitude (a rank
 * interpolated between -2 and 48 may be off by 0.04 at 2.4).
 */
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { StoreSeriesSource } from "../../../src/prometheus/store-source.ts";
import { Resolutions } from "../../../src/metrics/rollup/tier-stats.ts";
import { DAY_MS } from "../../../src/metrics/model.ts";
import { SKETCH_RELATIVE_ACCURACY } from "../../../src/metrics/quantile-sketch.ts";
import { DEFAULT_ROLLUP_TIERS, parseRollupTiers } from "../../../src/metrics/rollup/tiers.ts";
import type { Labels } from "../../../src/promql/labels.ts";
import { parsePromQL } from "../../../src/promql/parse.ts";
import { type QueryResult, rangeQuery } from "../../../src/promql/query.ts";
import { type Backend, type BackendStore, openBackendStore } from "../../helpers/metrics-backends.ts";
import { createTestDatabase, migrateAll, type TestDatabase } from "../../helpers/postgres.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await migrateAll(db.sql);
});
afterAll(() => db.drop());

const HOUR = 3_600_000;
const T0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 40 * DAY_MS;

const QUERIES: [string, boolean][] = [
  ["rate(x[1h])", false],
  ["sum by (host) (increase(x[6h]))", false],
  ["delta(x[2h])", false],
  ["sum_over_time(x[1h])", false],
  ["avg by (host) (avg_over_time(x[3h]))", false],
  ["count_over_time(x[1d])", false],
  ["max by (host) (max_over_time(x[90m]))", false],
  ["min_over_time(x[1h])", false],
  ["last_over_time(x[2h])", false],
  ["present_over_time(x[1h])", false],
  ["quantile_over_time(0.9, x[6h])", true],
  ["quantile_over_time(0.5, x[1d])", true],
];

const seriesArb = fc.array(
  fc.record({
    host: fc.constantFrom("a", "b"),
    counter: fc.boolean(),
    steps: fc.array(
      fc.record({ gap: fc.oneof(fc.constantFrom(60, 60, 300, 7200), fc.integer({ min: 1, max: 900 })), inc: fc.integer({ min: 0, max: 100 }), reset: fc.integer({ min: 0, max: 50 }), nan: fc.integer({ min: 0, max: 80 }) }),
      { minLength: 10, maxLength: 800 },
    ),
    late: fc.option(fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), n: fc.integer({ min: 1, max: 30 }) })),
  }),
  { minLength: 1, maxLength: 4 },
);

/** `scale`: for a quantile, the largest magnitude of the series' values (see above). */
function close(a: number, b: number, quantile: boolean, scale = 0): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (a === b) return true;
  const rel = quantile ? SKETCH_RELATIVE_ACCURACY * 1.000001 : 1e-9;
  return Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b), quantile ? scale : 0) + 1e-9;
}

function expectSame(got: QueryResult, want: QueryResult, quantile: boolean, what: string, scaleOf: (labels: Labels) => number = () => 0): void {
  expect(got.resultType).toBe("matrix");
  if (got.resultType !== "matrix" || want.resultType !== "matrix") return;
  expect(got.result.map((s) => s.labels), what).toEqual(want.result.map((s) => s.labels));
  got.result.forEach((s, i) => {
    const w = want.result[i]!;
    expect([...s.ts], `${what} steps`).toEqual([...w.ts]);
    const scale = scaleOf(s.labels);
    s.vals.forEach((v, k) => {
      expect(close(v, w.vals[k]!, quantile, scale), `${what} at ${s.ts[k]}: ${v} vs ${w.vals[k]}`).toBe(true);
    });
  });
}

describe.each<Backend>(["sqlite", "sqlite-worker", "postgres"])("PromQL windows through the rollup tiers on %s", (backend) => {
  const opened: BackendStore[] = [];
  const cleanup = async () => {
    for (const b of opened.splice(0)) await b.close();
    await db.sql.unsafe("TRUNCATE metric_tenants, metric_series, metric_blocks, metric_chunks, metric_rollups, metric_rollup_queue, metric_rollup_tiers");
  };
  afterEach(cleanup);

  it("answer as the raw samples do", async () => {
    await fc.assert(
      fc.asyncProperty(seriesArb, fc.constantFrom(HOUR, 15 * 60_000, 3 * HOUR + 17_000), fc.integer({ min: 0, max: 5 * 3600 }), async (series, step, offset) => {
        const b = await openBackendStore(backend, db.sql, { rollupTiers: parseRollupTiers(DEFAULT_ROLLUP_TIERS) });
        opened.push(b);
        const s = b.store;
        /** The largest magnitude each series (by its label k) was written with. */
        const scale = new Map<string, number>();
        for (const [k, x] of series.entries()) {
          const id = `x{host=${x.host},k=${k}}`;
          await s.ensureTags("t", [{ type: x.counter ? "counter" : "gauge", id, tags: { metric: "x", host: x.host, k: String(k) } }]);
          let t = T0;
          let v = 0;
          const points = x.steps.map((p) => {
            t += p.gap * 1000;
            v = x.counter ? (p.reset === 0 ? 0 : v + p.inc) : p.inc - 50;
            return { timestamp: t, value: !x.counter && p.nan === 0 ? Number.NaN : v };
          });
          const written = points.map((p) => p.value).filter(Number.isFinite);
          scale.set(String(k), Math.max(0, ...written.map((v) => Math.abs(v) + (x.counter ? 0 : 1))));
          const half = Math.floor(points.length / 2);
          await s.write("t", [{ type: x.counter ? "counter" : "gauge", id, points: points.slice(0, half) }]);
          await b.seal();
          await b.rollUp();
          await s.write("t", [{ type: x.counter ? "counter" : "gauge", id, points: points.slice(half) }]);
          if (x.late) {
            const a = Math.floor(x.late.at * points.length);
            await b.seal();
            await b.rollUp();
            await s.write("t", [{ type: x.counter ? "counter" : "gauge", id, points: points.slice(a, a + x.late.n).map((p) => ({ ...p, value: typeof p.value === "number" && !x.counter ? p.value + 1 : p.value })) }]);
          }
          if (k % 2 === 0) {
            await b.seal();
            await b.rollUp();
          }
        }
        const start = T0 + offset * 1000;
        const end = start + 4 * DAY_MS;
        for (const [q, quantile] of QUERIES) {
          const expr = parsePromQL(q);
          const want = await rangeQuery(expr, new StoreSeriesSource(s, "t"), start, end, step, { streaming: false });
          const got = await rangeQuery(expr, new StoreSeriesSource(s, "t"), start, end, step);
          expectSame(got, want, quantile, q, (labels) => scale.get(labels.find(([n]) => n === "k")?.[1] ?? "") ?? 0);
        }
        await cleanup();
      }),
      { numRuns: backend === "postgres" ? 4 : 12 },
    );
  });

  it("read the coarsest tier that answers, and say so", async () => {
    const b = await openBackendStore(backend, db.sql, { rollupTiers: parseRollupTiers(DEFAULT_ROLLUP_TIERS) });
    opened.push(b);
    const s = b.store;
    await s.ensureTags("t", [{ type: "counter", id: "c", tags: { metric: "c" } }]);
    await s.write("t", [{ type: "counter", id: "c", points: Array.from({ length: 10 * 1440 }, (_, i) => ({ timestamp: T0 + i * 60_000, value: i })) }]);
    await b.seal();
    await b.rollUp();
    const run = async (q: string, start: number, end: number, step: number) => {
      const seen = new Resolutions();
      const r = await rangeQuery(parsePromQL(q), new StoreSeriesSource(s, "t", seen), start, end, step);
      return { seen: seen.header(), r };
    };
    // Windows of a day on the day grid: daily rows alone.
    const daily = await run("increase(c[1d])", T0 + DAY_MS, T0 + 9 * DAY_MS, DAY_MS);
    expect(daily.seen).toBe("1d");
    expect(daily.r.resultType === "matrix" && [...daily.r.result[0]!.vals]).toEqual(Array(9).fill(1440));
    // Hour windows: hourly rows (the sample on a midnight is the edge of a daily row).
    expect((await run("increase(c[1h])", T0 + DAY_MS, T0 + 2 * DAY_MS, HOUR)).seen).toBe("1d,1h");
    // Short windows are read raw, as before.
    expect((await run("rate(c[5m])", T0 + DAY_MS, T0 + DAY_MS + HOUR, 60_000)).seen).toBe("raw");
  });
});
