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
import { type QueryResult, rangeQuery } from "../../../src/promql/query.ts";
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

/** One buffer for every read, filled with garbage first: a stale sample must never show. */
function dirtyBuffers() {
  let buf = new ArrayBuffer(64);
  return (bytes: number) => {
    if (buf.byteLength < bytes) buf = new ArrayBuffer(bytes * 2);
    new Float64Array(buf).fill(-7.5);
    return buf;
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
});
