/**
 * What a query gives back at once instead of leaving to the garbage collector (issue 28): the
 * other thread's per-series results once folded into an aggregation's groups (src/promql/
 * stream.ts), and a range query's matrix once answered (src/promql/result-memory.ts). Released
 * too early, a later series or the answer would read empty arrays.
 */
import { describe, expect, it } from "vitest";
import type { Expr } from "../../src/promql/ast.ts";
import type { EvalTimes } from "../../src/promql/engine.ts";
import { labelsFromRecord } from "../../src/promql/labels.ts";
import { type Offload, type OffloadJob, PerSeriesEval } from "../../src/promql/offload.ts";
import { parsePromQL } from "../../src/promql/parse.ts";
import { type QueryResult, rangeQuery } from "../../src/promql/query.ts";
import { releaseRangeResult } from "../../src/promql/result-memory.ts";
import type { SeriesRef, StepSeries } from "../../src/promql/values.ts";
import { MemorySource } from "../helpers/promql.ts";

const SLICE = 40;

/**
 * Evaluates the last slice of the series in this thread and hands the results over as the
 * worker's are: in buffers of their own, here all of them in one (so a release before every
 * series is folded would show in the sums).
 */
class OneSlabOffload implements Offload {
  handed: StepSeries[] = [];

  async start(expr: Expr, refs: readonly SeriesRef[], t: EvalTimes): Promise<OffloadJob | undefined> {
    const slices = Math.ceil(refs.length / SLICE);
    const from = slices - 1;
    const ev = new PerSeriesEval(expr, t);
    let samples = 0;
    for (const r of refs.slice(from * SLICE)) {
      const s = await r.read(ev.arena);
      if (!s) continue;
      samples += s.ts.length;
      ev.add(s);
    }
    ev.endSlice();
    const own = ev.finish();
    const n = t.times.length;
    const slab = new ArrayBuffer(own.length * n * 9);
    this.handed = own.map((s, k) => {
      const vals = new Float64Array(slab, k * n * 8, n);
      const has = new Uint8Array(slab, own.length * n * 8 + k * n, n);
      vals.set(s.vals);
      has.set(s.has);
      return { labels: s.labels, vals, has };
    });
    const result = { slices: 1, series: this.handed, samples };
    return { sliceSize: SLICE, from, feed: async () => {}, finish: () => from, result: Promise.resolve(result) };
  }
}

function source(): MemorySource {
  const src = new MemorySource();
  for (let k = 0; k < 230; k++) {
    const ts = Float64Array.from({ length: 120 }, (_, i) => i * 15_000);
    const vals = Float64Array.from(ts, (_, i) => i * (k % 7) + (i > 60 && k % 5 === 0 ? -i : 0));
    src.series.push({ labels: labelsFromRecord({ __name__: "x", host: `h${k % 9}`, idx: String(k) }), ts, vals });
  }
  return src;
}

const plain = (r: QueryResult) => JSON.stringify(r.resultType === "matrix" ? r.result.map((s) => [s.labels, Array.from(s.ts), Array.from(s.vals, String)]) : r);
const range = (q: string, offload?: Offload) => rangeQuery(parsePromQL(q), source(), 0, 1_800_000, 60_000, { offload });

describe("memory a query gives back", () => {
  it("releases the other thread's results once all are folded into groups, and the sums are those of one thread", async () => {
    for (const q of ["sum by (host) (rate(x[2m]))", "avg(x)", "max by (host) (delta(x[5m]))"]) {
      const offload = new OneSlabOffload();
      const two = await range(q, offload);
      expect(offload.handed.length, q).toBeGreaterThan(0);
      expect(plain(two), q).toBe(plain(await range(q)));
      // Detached: the slab went back to the allocator.
      for (const s of offload.handed) expect([s.vals.length, s.has.length], q).toEqual([0, 0]);
    }
  });

  it("keeps the other thread's results that are the answer itself", async () => {
    const offload = new OneSlabOffload();
    const two = await range("rate(x[2m])", offload);
    expect(plain(two)).toBe(plain(await range("rate(x[2m])")));
    expect(offload.handed.every((s) => s.vals.length > 0)).toBe(true);
  });

  it("empties a range query's matrix once answered, and leaves other results alone", async () => {
    const r = await range("rate(x[2m])");
    expect(r.resultType === "matrix" && r.result.length).toBe(230);
    releaseRangeResult(r);
    expect(r.resultType === "matrix" && r.result.every((s) => s.vals.length === 0 && s.ts.length === 0)).toBe(true);
    const v: QueryResult = { resultType: "vector", result: [{ labels: [], t: 1, v: 2 }] };
    releaseRangeResult(v);
    expect(v.result).toEqual([{ labels: [], t: 1, v: 2 }]);
  });
});
