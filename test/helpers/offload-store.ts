/**
 * A real SQLite metrics store holding many Prometheus-style series, for the tests of PromQL
 * evaluation in a worker thread (collector/metrics/promql-offload.ts): some points sealed in
 * chunks, some in the heads, some timestamps written again after sealing (overlapping pieces).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreSeriesSource } from "../../src/prometheus/store-source.ts";
import type { PromqlOffload } from "../../collector/metrics/promql-offload.ts";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../collector/store/metrics/sqlite/store.ts";
import { parsePromQL } from "../../src/promql/parse.ts";
import { type QueryResult, rangeQuery } from "../../src/promql/query.ts";
import { seriesId, seriesTags } from "../../src/prometheus/series-mapping.ts";

export interface TestSeries {
  name: string;
  labels: Record<string, string>;
  type: "counter" | "gauge" | "availability";
  /** ms, ascending */
  ts: number[];
  vals: number[];
  /** Points written after the first seal: later ones (the head) and rewrites of sealed timestamps. */
  late?: { ts: number; v: number }[];
}

export const TENANT = "t";

export async function storeWith(series: readonly TestSeries[], chunkPoints = 64): Promise<{ store: SqliteMetricsStore; dir: string; remove(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "outpost-offload-"));
  const store = await openSqliteMetricsStore({ dataDir: dir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkPoints, defaultRetentionDays: 3650 });
  const ids = series.map((s) => seriesId(s.name, s.labels));
  await store.ensureTags(
    TENANT,
    series.map((s, i) => ({ type: s.type, id: ids[i]!, tags: seriesTags(s.name, s.labels) })),
  );
  const value = (s: TestSeries, v: number) => (s.type === "availability" ? (v > 0 ? "up" : "down") : v);
  await store.write(
    TENANT,
    series.map((s, i) => ({ type: s.type, id: ids[i]!, points: s.ts.map((t, k) => ({ timestamp: t, value: value(s, s.vals[k]!) })) })),
  );
  store.flushDue(true);
  const late = series.map((s, i) => ({ type: s.type, id: ids[i]!, points: (s.late ?? []).map((p) => ({ timestamp: p.ts, value: value(s, p.v) })) })).filter((w) => w.points.length > 0);
  if (late.length > 0) await store.write(TENANT, late);
  return {
    store,
    dir,
    async remove() {
      if (store.ready()) await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every value of a result exactly (as strings: NaN and -0 kept), or the error it ends in. */
export async function exactly(p: Promise<QueryResult>): Promise<unknown> {
  try {
    const r = await p;
    if (r.resultType !== "matrix") return r;
    return r.result.map((s) => ({ l: s.labels, t: Array.from(s.ts), v: Array.from(s.vals, (x) => (Object.is(x, -0) ? "-0" : String(x))) }));
  } catch (e) {
    return { error: String(e) };
  }
}

/** The range query on one thread and with `offload`, each as `exactly` gives it. */
export async function bothWays(store: SqliteMetricsStore, offload: PromqlOffload, q: string, start: number, end: number, step: number): Promise<[unknown, unknown]> {
  const e = parsePromQL(q);
  const one = await exactly(rangeQuery(e, new StoreSeriesSource(store, TENANT), start, end, step));
  const two = await exactly(rangeQuery(e, new StoreSeriesSource(store, TENANT), start, end, step, { offload }));
  return [one, two];
}
