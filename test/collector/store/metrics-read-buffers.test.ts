/**
 * Reads into reused buffers (a PromQL scan's ReadBuffers): the same samples as reads that
 * allocate, whatever the buffer held before, for series in chunks, in the head, in both, and
 * written out of order; and PromQL queries over a real store that reuse buffers across batches
 * give what loading every series first gives.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { StoreSeriesSource } from "../../../src/prometheus/store-source.ts";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { parsePromQL } from "../../../src/promql/parse.ts";
import { instantQuery, type QueryResult, rangeQuery } from "../../../src/promql/query.ts";
import { keptReadArenas } from "../../../src/runtime/read-arenas.ts";
import { bucketsFromCount } from "../../../src/metrics/buckets.ts";
import { numericBucketStats } from "../../../src/metrics/bucket-stats.ts";
import { readNumericStats, readRates } from "../../../src/metrics/queries.ts";
import { rates } from "../../../src/metrics/rates.ts";
import type { ReadBuffers } from "../../../src/promql/values.ts";
import { FloatArena } from "../../../src/runtime/float-arena.ts";
import { seriesId, seriesTags } from "../../../src/prometheus/series-mapping.ts";

const dirs: string[] = [];
const stores: SqliteMetricsStore[] = [];
async function open(chunkPoints: number) {
  const d = mkdtempSync(join(tmpdir(), "outpost-read-buffers-"));
  dirs.push(d);
  const s = await openSqliteMetricsStore({ dataDir: d, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkPoints });
  stores.push(s);
  return s;
}
afterEach(async () => {
  for (const s of stores.splice(0)) if (s.ready()) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 6 * 3_600_000;

/**
 * An arena whose memory is filled with garbage before each read, and whose slab is small enough
 * that some reads spill: a stale sample must never show, and room handed back (shrink) is
 * handed out again to the next read.
 */
function dirtyBuffers(): ReadBuffers {
  const arena = new FloatArena(false, 256);
  return {
    take(n) {
      arena.reset();
      const v = arena.take(n + 1).fill(-7.5);
      // A view that does not start at the slab's start.
      arena.shrink(v, 1);
      return arena.take(n).fill(-7.5);
    },
    shrink: (room, n) => arena.shrink(room, n),
  };
}

describe("reads into reused buffers", () => {
  it("return exactly the samples of reads that allocate", async () => {
    // Per series: batches of (offset, count, step) written in turn, some followed by a flush.
    const batch = fc.record({ at: fc.integer({ min: 0, max: 400 }), n: fc.integer({ min: 1, max: 40 }), step: fc.integer({ min: 1, max: 30 }), flush: fc.boolean() });
    const spec = fc.array(fc.array(batch, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 });
    const ranges = fc.array(fc.tuple(fc.integer({ min: -10, max: 1500 }), fc.integer({ min: 0, max: 1600 })), { minLength: 1, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(spec, ranges, fc.integer({ min: 2, max: 16 }), async (series, rs, chunkPoints) => {
        const s = await open(chunkPoints);
        for (let k = 0; k < series.length; k++) {
          for (const b of series[k]!) {
            const points = Array.from({ length: b.n }, (_v, i) => ({ timestamp: T0 + (b.at + i * b.step) * 1000, value: k * 1000 + b.at + i * 0.5 }));
            await s.write("t", [{ type: "gauge", id: `g${k}`, points }]);
            if (b.flush) s.flushDue(true);
          }
        }
        const buffers = dirtyBuffers();
        for (const [a, len] of rs) {
          for (let k = 0; k < series.length; k++) {
            const [start, end] = [T0 + a * 1000, T0 + (a + len) * 1000];
            const plain = await s.readSeries("t", "gauge", `g${k}`, start, end);
            const reused = await s.readSeries("t", "gauge", `g${k}`, start, end, buffers);
            expect(Array.from(reused?.ts ?? [])).toEqual(Array.from(plain?.ts ?? []));
            expect(Array.from(reused?.values ?? [])).toEqual(Array.from(plain?.values ?? []));
          }
        }
        await s.close();
      }),
      { numRuns: 40 },
    );
  });

  it("give PromQL over many batches the results of loading every series first", async () => {
    // 30 series × 2,881 samples: more than one batch of the series-by-series evaluation.
    const s = await open(1024);
    for (let k = 0; k < 30; k++) {
      const labels = { host: `h${k % 4}`, n: String(k) };
      const id = seriesId("req_total", labels);
      await s.ensureTags("t", [{ type: "counter", id, tags: seriesTags("req_total", labels) }]);
      let v = 0;
      const points = Array.from({ length: 2881 }, (_x, j) => ({ timestamp: T0 + j * 7_500, value: j % 700 === 699 ? (v = 0) : (v += (k * 7 + j * 13) % 23) }));
      await s.write("t", [{ type: "counter", id, points: points.filter((_p, j) => j % 97 !== 5) }]);
      if (k % 3 !== 2) s.flushDue(true);
    }
    const plain = (r: QueryResult) => (r.resultType === "matrix" ? r.result.map((x) => [x.labels, Array.from(x.ts), Array.from(x.vals, String)]) : r);
    for (const q of ["rate(req_total[5m])", "sum by (host) (rate(req_total[5m]))", "max(increase(req_total[2m] offset 1m))", "avg by (host) (req_total)"]) {
      const e = parsePromQL(q);
      const [start, end] = [T0 + 600_000, T0 + 6 * 3_600_000];
      const streamed = await rangeQuery(e, new StoreSeriesSource(s, "t"), start, end, 60_000);
      const loaded = await rangeQuery(e, new StoreSeriesSource(s, "t"), start, end, 60_000, { streaming: false });
      expect(plain(streamed)).toEqual(plain(loaded));
      expect(streamed.resultType === "matrix" && streamed.result.length).toBeGreaterThan(0);
    }
  });

  it("give queries that run at the same time, their samples in arenas handed from query to query, what each gives alone", async () => {
    // Queries of both evaluations (series by series, and every series loaded first), an instant
    // query whose range vector is the answer, and one that fails: started together, their reads
    // interleave, and the arenas they release go to the next queries.
    const s = await open(64);
    for (let k = 0; k < 40; k++) {
      const labels = { host: `h${k % 5}`, le: String(k % 8), n: String(k) };
      const id = seriesId("lat_bucket", labels);
      await s.ensureTags("t", [{ type: "counter", id, tags: seriesTags("lat_bucket", labels) }]);
      const points = Array.from({ length: 721 }, (_x, j) => ({ timestamp: T0 + j * 15_000, value: j * (k + 1) + (k % 3) }));
      await s.write("t", [{ type: "counter", id, points }]);
      if (k % 4 !== 3) s.flushDue(true);
    }
    const [start, end] = [T0 + 600_000, T0 + 3 * 3_600_000];
    const plain = (r: QueryResult) => JSON.stringify(r.resultType === "matrix" ? r.result.map((x) => [x.labels, Array.from(x.ts), Array.from(x.vals, String)]) : r);
    const range = (q: string) => rangeQuery(parsePromQL(q), new StoreSeriesSource(s, "t"), start, end, 60_000);
    const instant = (q: string) => instantQuery(parsePromQL(q), new StoreSeriesSource(s, "t"), T0 + 3_600_000);
    const queries: (() => Promise<QueryResult>)[] = [
      () => range("histogram_quantile(0.9, sum by (le) (rate(lat_bucket[5m])))"),
      () => range("rate(lat_bucket[5m])"),
      () => range("sum by (host) (rate(lat_bucket[2m]))"),
      () => range('lat_bucket{le="3"} / on (host, n) lat_bucket'),
      () => instant("lat_bucket[2m]"),
      () => instant("max_over_time(lat_bucket[10m])"),
    ];
    const alone: string[] = [];
    for (const q of queries) alone.push(plain(await q()));
    const kept = await instant("lat_bucket[5m]");
    const keptText = plain(kept);
    for (let round = 0; round < 3; round++) {
      const together = await Promise.all([...queries, ...queries].map((q) => q()));
      expect(together.map(plain)).toEqual([...alone, ...alone]);
    }
    // An answer keeps none of the arenas' memory: later queries did not change it.
    expect(plain(kept)).toBe(keptText);
    expect(kept.resultType === "matrix" && kept.result.length).toBe(40);
    expect(keptReadArenas()).toBeGreaterThan(0);
  });

  it("give Hawkular stats and rates read into arenas, many at a time, what the points read plainly give", async () => {
    const s = await open(128);
    for (let k = 0; k < 12; k++) {
      const points = Array.from({ length: 1500 }, (_x, j) => ({ timestamp: T0 + j * 10_000, value: ((k + 1) * j) % 997 }));
      await s.write("t", [{ type: "gauge", id: `g${k}`, points }]);
      if (k % 3 !== 0) s.flushDue(true);
    }
    const asks = Array.from({ length: 24 }, (_x, i) => ({ id: `g${i % 12}`, from: T0 + (i % 7) * 600_000 + 5_000, to: T0 + (i % 7) * 600_000 + 3_600_000 + (i % 3) * 7_000, count: 5 + (i % 11) }));
    const plainStats = async (a: (typeof asks)[number]) => {
      const b = bucketsFromCount(a.from, a.to, a.count);
      const r = await s.readSeries("t", "gauge", a.id, b.start, b.start + b.count * b.step);
      return numericBucketStats({ ts: r!.ts, values: r!.values }, b, { percentiles: [{ quantile: 0.9, original: "90" }], feedOrder: "desc" });
    };
    const plainRates = async (a: (typeof asks)[number]) => {
      const r = await s.readSeries("t", "gauge", a.id, a.from, a.to);
      const x = rates({ ts: r!.ts, values: r!.values }, { kind: "gauge" });
      return Array.from(x.ts, (t, i) => ({ timestamp: t, value: x.values[i]! }));
    };
    const expected: unknown[] = [];
    for (const a of asks) expected.push(await plainStats(a), await plainRates(a));
    for (let round = 0; round < 2; round++) {
      const got = await Promise.all(
        asks.flatMap((a) => [
          readNumericStats(s, "t", "gauge", a.id, { buckets: bucketsFromCount(a.from, a.to, a.count), percentiles: [{ quantile: 0.9, original: "90" }] }),
          readRates(s, "t", "gauge", a.id, { range: { start: a.from, end: a.to }, order: "asc" }),
        ]),
      );
      expect(got).toEqual(expected);
    }
  });
});
