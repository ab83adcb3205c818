/**
 * Rollup tiers on both engines, through the real stores: random series written in several
 * writes (late and repeated points, gaps, counter resets, NaN), sealed and rolled up between
 * writes, must give the Hawkular stats raw points give — min, max, sum, samples and avg within
 * float rounding, the median and percentiles within the sketch's 1 % of the exact quantile (or
 * exactly the raw answer where a bucket is read raw) — and availability stats exactly. Then the
 * life of a tier: raw points expiring behind it, late points after a bucket was rolled up, a
 * deleted metric, a restart in the middle of a catch-up.
 */
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readAvailabilityStats, readMultiStats, readNumericStats } from "../../../src/metrics/queries.ts";
import { Resolutions } from "../../../src/metrics/rollup/tier-stats.ts";
import type { MetricsStore } from "../../../collector/store/metrics/types.ts";
import { availabilityBucketStats } from "../../../src/metrics/availability-stats.ts";
import type { NumericBucketPoint } from "../../../src/metrics/bucket-points.ts";
import { numericBucketStats } from "../../../src/metrics/bucket-stats.ts";
import type { Buckets } from "../../../src/metrics/buckets.ts";
import { AVAILABILITY_VALUES, DAY_MS, type MetricType } from "../../../src/metrics/model.ts";
import { SKETCH_RELATIVE_ACCURACY } from "../../../src/metrics/quantile-sketch.ts";
import { rates } from "../../../src/metrics/rates.ts";
import { DEFAULT_ROLLUP_TIERS, parseRollupTiers } from "../../../src/metrics/rollup/tiers.ts";
import { withoutStaleMarkers } from "../../../src/prometheus/staleness.ts";
import { quantile } from "../../../src/promql/kahan.ts";
import { type Backend, type BackendStore, openBackendStore } from "../../helpers/metrics-backends.ts";
import { createTestDatabase, migrateAll, type TestDatabase } from "../../helpers/postgres.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await migrateAll(db.sql);
});
afterAll(() => db.drop());

const TIERS = parseRollupTiers(DEFAULT_ROLLUP_TIERS);
const HOUR = 3_600_000;
/** A UTC midnight some weeks ago: the series span a few days from there. */
const T0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 30 * DAY_MS;

interface Written {
  type: MetricType;
  writes: { timestamp: number; value: number | string }[][];
}

/** Points of a few days: gaps from a second to hours, counter resets, staleness markers (NaN), then rewrites of earlier stretches. */
const seriesArb = (type: MetricType) =>
  fc
    .record({
      steps: fc.array(
        fc.record({
          gap: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constantFrom(60, 60, 60, 300, 3600, 7200, 86_400)),
          v: fc.integer({ min: 0, max: 5000 }),
          reset: fc.integer({ min: 0, max: 40 }),
          nan: fc.integer({ min: 0, max: 60 }),
        }),
        { minLength: 20, maxLength: 1500 },
      ),
      late: fc.array(fc.record({ from: fc.double({ min: 0, max: 1, noNaN: true }), count: fc.integer({ min: 1, max: 40 }), shift: fc.integer({ min: -1, max: 1 }) }), { maxLength: 3 }),
      cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }),
    })
    .map(({ steps, late, cuts }): Written => {
      let t = T0;
      let c = 0;
      const points = steps.map((s) => {
        t += s.gap * 1000;
        c = s.reset === 0 ? s.v % 10 : c + s.v;
        const value: number | string =
          type === "availability" ? AVAILABILITY_VALUES[s.v % 4]! : type === "counter" ? c : s.nan === 0 ? Number.NaN : (s.v - 2500) / 10;
        return { timestamp: t, value };
      });
      const at = [...cuts.map((x) => Math.floor(x * points.length)), points.length].sort((a, b) => a - b);
      const writes: Written["writes"] = [];
      let from = 0;
      for (const k of at) {
        if (k > from) writes.push(points.slice(from, k));
        from = k;
      }
      // Late writes: earlier stretches again, some values changed, some timestamps moved by a second.
      for (const l of late) {
        const a = Math.floor(l.from * points.length);
        writes.push(
          points.slice(a, a + l.count).map((p, i) => ({
            timestamp: p.timestamp + (i % 3 === 0 ? l.shift * 1000 : 0),
            value: typeof p.value === "number" && !Number.isNaN(p.value) && type !== "counter" ? p.value + 1 : p.value,
          })),
        );
      }
      return { type, writes };
    });

/** Bucket layouts: on the tiers' grids, and anywhere. */
const LAYOUTS: ((span: number) => Buckets)[] = [
  () => ({ start: T0, step: HOUR, count: 24 * 8 }),
  () => ({ start: T0, step: DAY_MS, count: 8 }),
  () => ({ start: T0 + 12_345, step: Math.ceil((7 * DAY_MS) / 60), count: 60 }),
  () => ({ start: T0 - 7 * HOUR, step: 9 * HOUR + 77, count: 25 }),
  () => ({ start: T0 + 3 * 300_000, step: 300_000, count: 600 }),
];

const BOUND = SKETCH_RELATIVE_ACCURACY * (1 + 1e-9);
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** A tier-served bucket against the raw points of the bucket (the raw path's answer is `raw`). */
function expectNumeric(got: NumericBucketPoint, raw: NumericBucketPoint, values: number[], what: string): void {
  expect(got.empty, what).toBe(raw.empty);
  if (got.empty || raw.empty) return;
  if (JSON.stringify(got) === JSON.stringify(raw)) return; // read raw: the very answer (NaN written as null on both sides)
  expect([got.min, got.max, got.samples], what).toEqual([raw.min, raw.max, raw.samples]);
  expect(close(got.sum, raw.sum), `${what} sum ${got.sum} vs ${raw.sum}`).toBe(true);
  expect(close(got.avg, raw.avg), `${what} avg`).toBe(true);
  expectQuantile(got.median, 0.5, values, `${what} median`);
  for (const p of got.percentiles ?? []) expectQuantile(p.value, p.quantile / 100, values, `${what} p${p.quantile}`);
}

/**
 * The stated error of a quantile: the sketch answers each of the two ranks around q·(n − 1)
 * within α, so the interpolation is within α of the interpolated magnitudes (α of the exact
 * value when both have one sign).
 */
function expectQuantile(got: number, q: number, values: number[], what: string): void {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  const exact = quantile(q, [...sorted]);
  const rank = q * (sorted.length - 1);
  const lo = Math.floor(rank);
  const w = rank - lo;
  const bound = BOUND * ((1 - w) * Math.abs(sorted[lo]!) + w * Math.abs(sorted[Math.min(lo + 1, sorted.length - 1)]!));
  expect(Math.abs(got - exact), `${what}: ${got} vs exact ${exact}`).toBeLessThanOrEqual(bound + 1e-12);
}

/** The raw points as the Hawkular stats read them: staleness markers (NaN) are no points. */
async function rawSeries(store: MetricsStore, type: MetricType, id: string, b: Buckets) {
  const s = await store.readSeries("t", type, id, b.start, b.start + b.count * b.step);
  return s ? withoutStaleMarkers({ ts: s.ts, values: s.values }) : { ts: new Float64Array(0), values: new Float64Array(0) };
}

function bucketValues(ts: Float64Array, values: Float64Array, lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < ts.length; i++) if (ts[i]! >= lo && ts[i]! < hi) out.push(values[i]!);
  return out;
}

describe.each<Backend>(["sqlite", "sqlite-worker", "postgres"])("rollup tiers on %s", (backend) => {
  const opened: BackendStore[] = [];
  let clock = Date.now();
  const open = async (o: { now?: () => number } = {}) => {
    const b = await openBackendStore(backend, db.sql, { rollupTiers: TIERS, ...o });
    opened.push(b);
    return b;
  };
  const cleanup = async () => {
    for (const b of opened.splice(0)) await b.close();
    await db.sql.unsafe("TRUNCATE metric_tenants, metric_series, metric_blocks, metric_chunks, metric_rollups, metric_rollup_queue, metric_rollup_tiers");
  };
  afterEach(cleanup);

  /** Writes a series in its writes, sealing and rolling up after each but the last. */
  async function load(b: BackendStore, id: string, w: Written): Promise<void> {
    for (const [i, points] of w.writes.entries()) {
      await b.store.write("t", [{ type: w.type, id, points }]);
      if (i < w.writes.length - 1 || i % 2 === 0) {
        await b.seal();
        await b.rollUp();
      }
    }
  }

  for (const type of ["gauge", "counter"] as const) {
    it(`${type}s: tier-served stats are the raw points' stats`, async () => {
      await fc.assert(
        fc.asyncProperty(seriesArb(type), async (w) => {
          const b = await open();
          await load(b, "m", w);
          for (const layout of LAYOUTS) {
            const buckets = layout(0);
            const percentiles = [{ quantile: 90, original: "90" }];
            const got = await readNumericStats(b.store, "t", type, "m", { buckets, percentiles });
            const raw = await rawSeries(b.store, type, "m", buckets);
            const want = numericBucketStats(raw, buckets, { feedOrder: type === "gauge" ? "desc" : "asc", percentiles });
            got.forEach((g, i) => {
              const lo = buckets.start + i * buckets.step;
              expectNumeric(g, want[i]!, bucketValues(raw.ts, raw.values, lo, lo + buckets.step), `${type} bucket ${i} of ${buckets.step} ms`);
            });
            if (type === "counter") {
              const gotRates = await readNumericStats(b.store, "t", type, "m", { buckets }, true);
              const r = rates(raw, { kind: "counter" });
              const wantRates = numericBucketStats(r, buckets, { feedOrder: "asc" });
              gotRates.forEach((g, i) => {
                const lo = buckets.start + i * buckets.step;
                expectNumeric(g, wantRates[i]!, bucketValues(r.ts, r.values, lo, lo + buckets.step), `rate bucket ${i} of ${buckets.step} ms`);
              });
            }
          }
          await cleanup();
        }),
        { numRuns: backend === "postgres" ? 5 : 12 },
      );
    });
  }

  it("availability: tier-served stats are exactly the raw points' stats", async () => {
    await fc.assert(
      fc.asyncProperty(seriesArb("availability"), async (w) => {
        const b = await open();
        await load(b, "a", w);
        for (const layout of LAYOUTS) {
          const buckets = layout(0);
          const got = await readAvailabilityStats(b.store, "t", "a", { buckets });
          expect(got).toEqual(availabilityBucketStats(await rawSeries(b.store, "availability", "a", buckets), buckets));
        }
        await cleanup();
      }),
      { numRuns: backend === "postgres" ? 4 : 10 },
    );
  });

  it("pooled and stacked stats of several metrics read the tiers too", async () => {
    const b = await open();
    for (let m = 0; m < 3; m++) {
      const points = Array.from({ length: 3 * 1440 }, (_, i) => ({ timestamp: T0 + i * 60_000 + m * 1000, value: ((i * (m + 3)) % 97) + m }));
      await b.store.write("t", [{ type: "gauge", id: `g${m}`, points }]);
    }
    await b.seal();
    await b.rollUp();
    const buckets = { start: T0, step: 6 * HOUR, count: 12 };
    const defs = [0, 1, 2].map((m) => ({ tenantId: "t", id: `g${m}`, type: "gauge" as const }));
    const seen = new Resolutions();
    const pooled = await readMultiStats(b.store, "t", "gauge", defs, { buckets, stacked: false, rate: false, seen });
    expect(seen.header()).toBe("1h");
    const raws = await Promise.all(defs.map((d) => rawSeries(b.store, "gauge", d.id, buckets)));
    const all = raws.flatMap((r) => [...r.ts].map((t, i) => [t, r.values[i]!] as const)).sort((x, y) => x[0] - y[0]);
    const merged = { ts: Float64Array.from(all, (p) => p[0]), values: Float64Array.from(all, (p) => p[1]) };
    const want = numericBucketStats(merged, buckets, { feedOrder: "desc" });
    pooled.forEach((g, i) => {
      expectNumeric(g, want[i]!, bucketValues(merged.ts, merged.values, buckets.start + i * buckets.step, buckets.start + (i + 1) * buckets.step), `pooled ${i}`);
    });
    const stacked = await readMultiStats(b.store, "t", "gauge", defs, { buckets, stacked: true, rate: false });
    stacked.forEach((g, i) => {
      if (g.empty) return;
      expect(g.samples).toBe(3);
      const per = raws.map((r) => numericBucketStats(r, buckets, { feedOrder: "desc" })[i]!);
      expect(close(g.sum, per.reduce((x, p) => x + (p.empty ? 0 : p.sum), 0))).toBe(true);
      expect(g.max).toBe(per.reduce((x, p) => x + (p.empty ? 0 : p.max), 0));
    });
  });

  it("keeps answering from the tiers after the raw points expire, and takes late points in", async () => {
    clock = Date.now();
    const b = await open({ now: () => clock });
    const points = Array.from({ length: 2 * 1440 }, (_, i) => ({ timestamp: T0 + i * 60_000, value: i % 100 }));
    await b.store.write("t", [{ type: "gauge", id: "g", points }]);
    await b.seal();
    await b.rollUp();
    const buckets = { start: T0, step: HOUR, count: 48 };
    const before = await readNumericStats(b.store, "t", "gauge", "g", { buckets });
    // The raw points' 7 days pass: only the tiers are left.
    clock += 8 * DAY_MS;
    await b.enforceRetention();
    expect(await b.chunks()).toBe(0);
    expect((await b.store.readRaw("t", "gauge", "g", { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" })).ts).toEqual([]);
    const seen = new Resolutions();
    const after = await readNumericStats(b.store, "t", "gauge", "g", { buckets, seen });
    expect(seen.header()).toBe("1h");
    expect(after).toEqual(before);
    // An unaligned range where raw is gone: the stored buckets go whole to the bucket they start in.
    const shifted = await readNumericStats(b.store, "t", "gauge", "g", { buckets: { start: T0 + 1000, step: HOUR, count: 47 } });
    expect(shifted.reduce((n, p) => n + (p.empty ? 0 : p.samples), 0)).toBe(47 * 60);
    // A late point into a rolled-up bucket whose raw points are gone is added to it.
    await b.store.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: T0 + 30_000, value: 1000 }] }]);
    await b.seal();
    await b.rollUp();
    const late = await readNumericStats(b.store, "t", "gauge", "g", { buckets });
    const first = late[0] as Extract<NumericBucketPoint, { empty: false }>;
    const was = before[0] as Extract<NumericBucketPoint, { empty: false }>;
    expect([first.samples, first.max, first.sum]).toEqual([was.samples + 1, 1000, was.sum + 1000]);
    expect(late.slice(1)).toEqual(before.slice(1));
  });

  it("corrects a bucket when a late point arrives after it was rolled up (raw points still stored)", async () => {
    const b = await open();
    await b.store.write("t", [{ type: "gauge", id: "g", points: Array.from({ length: 1440 }, (_, i) => ({ timestamp: T0 + i * 60_000, value: 5 })) }]);
    await b.seal();
    await b.rollUp();
    // A value replaced, and a point added in the same hour.
    await b.store.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: T0 + 60_000, value: 50 }, { timestamp: T0 + 90_000, value: -5 }] }]);
    const buckets = { start: T0, step: DAY_MS, count: 1 };
    const want = (p: NumericBucketPoint) => expect(p).toMatchObject({ min: -5, max: 50, samples: 1441, sum: 1439 * 5 + 50 - 5 });
    // Pending (not sealed yet): read raw where the tiers lack it.
    want((await readNumericStats(b.store, "t", "gauge", "g", { buckets }))[0]!);
    await b.seal();
    await b.rollUp();
    const seen = new Resolutions();
    want((await readNumericStats(b.store, "t", "gauge", "g", { buckets, seen }))[0]!);
    expect(seen.header()).toBe("1d");
  });

  it("deletes a metric's tiers with the metric", async () => {
    const b = await open();
    await b.store.write("t", [{ type: "counter", id: "c", points: Array.from({ length: 500 }, (_, i) => ({ timestamp: T0 + i * 60_000, value: i })) }]);
    await b.seal();
    await b.rollUp();
    const count = async () =>
      backend === "postgres"
        ? Number((await db.sql.unsafe("SELECT count(*) AS n FROM metric_rollups"))[0].n)
        : ((b.store as unknown as { s: { db: { query(q: string): { get(): { n: number } } } } }).s.db.query("SELECT count(*) AS n FROM rollups").get().n);
    expect(await count()).toBeGreaterThan(0);
    expect(await b.store.deleteMetric("t", "counter", "c")).toBe(true);
    expect(await count()).toBe(0);
  });
});


