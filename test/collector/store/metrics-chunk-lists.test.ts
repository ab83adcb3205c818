/**
 * The SQLite store's chunk lists kept between queries (sqlite/chunk-lists.ts): a later query
 * (another seriesReader) reads what per-series reads read after chunks were sealed, rewritten,
 * expired, deleted by retention, a metric deleted and created again — and repeating a query
 * over an unchanged store runs no lookup statement. The kept lists are bounded by chunks.
 */
import { describe, expect, it } from "vitest";
import { partsColumns, type SeriesParts } from "../../../collector/store/metrics/parts.ts";
import type { SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import type { MetricType } from "../../../src/metrics/model.ts";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const DAY = 86_400_000;
const T0 = 1_700_000_000_000;
let clock = T0;

const stores = sqliteMetricsStoresPerTest("outpost-chunk-lists-");

function open(chunkListChunks?: number, defaultRetentionDays = 1) {
  clock = T0 + 100_000;
  return stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkPoints: 8, defaultRetentionDays, chunkListChunks, now: () => clock });
}

type Item = { type: MetricType; id: string };
const N = 40;
const items: Item[] = Array.from({ length: N }, (_v, k) => ({ type: "gauge" as const, id: `g${k}` }));
const write = (s: SqliteMetricsStore, k: number, from: number, n: number, v = 0) =>
  s.write("t", [{ type: "gauge", id: `g${k}`, points: Array.from({ length: n }, (_x, i) => ({ timestamp: T0 + (from + i) * 1000, value: v + k + i })) }]);

/** One query: every item through one reader (parts and series alternately), and the same per series. */
async function query(s: SqliteMetricsStore, start = T0, end = T0 + 200_000) {
  const reader = s.seriesReader("t", items, start, end);
  const viaReader: unknown[] = [];
  const single: unknown[] = [];
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    viaReader.push(i % 2 ? await reader.readParts(i) : await reader.readSeries(i));
    single.push(i % 2 ? await s.readParts("t", it.type, it.id, start, end) : await s.readSeries("t", it.type, it.id, start, end));
  }
  return { viaReader, single };
}

/** Points per series a query answered. */
const counts = (answers: unknown[]) => answers.map((a) => (a === undefined ? -1 : "ts" in (a as object) ? (a as { ts: Float64Array }).ts.length : partsColumns(a as SeriesParts).ts.length));

describe("chunk lists kept between queries", () => {
  it("a repeated query runs no lookup; later queries see sealed, rewritten, expired and deleted chunks", async () => {
    const s = await open();
    for (let k = 0; k < N; k++) await write(s, k, 0, 30);
    s.flushDue(true);
    let q = await query(s);
    expect(q.viaReader).toEqual(q.single);
    const first = s.chunkLists();
    expect(first.lookups).toBe(2); // 40 series, 32 a statement
    expect(first.series).toBe(N);
    const perSeries = first.chunks / N; // 30 points in chunks of about 8
    expect(perSeries).toBeGreaterThanOrEqual(2);

    q = await query(s);
    expect(q.viaReader).toEqual(q.single);
    expect(s.chunkLists().lookups).toBe(2);
    // A later range (a dashboard's refresh) within the lists kept: no lookup either.
    q = await query(s, T0 + 10_000, T0 + 210_000);
    expect(q.viaReader).toEqual(q.single);
    expect(s.chunkLists().lookups).toBe(2);

    // Sealed chunks are added to the lists kept, without a lookup.
    for (let k = 0; k < N; k++) await write(s, k, 30, 10);
    s.flushDue(true);
    q = await query(s);
    expect(q.viaReader).toEqual(q.single);
    expect(counts(q.single)).toEqual(Array(N).fill(40));
    expect(s.chunkLists().lookups).toBe(2);
    expect(s.chunkLists().chunks).toBeGreaterThan(N * perSeries);

    // Rewritten timestamps: a later chunk overlapping earlier ones, the latest write wins.
    await write(s, 5, 10, 5, 1000);
    s.flushDue(true);
    q = await query(s);
    expect(q.viaReader).toEqual(q.single);
    expect(partsColumns(q.single[5] as SeriesParts).nums[10]).toBe(1005);
    expect(counts(q.single)[5]).toBe(40);

    // A deleted metric, another created again with the same id (and maybe the same sid).
    await s.deleteMetric("t", "gauge", "g7");
    await s.deleteMetric("t", "gauge", "g39");
    await write(s, 39, 100, 4, 9000);
    s.flushDue(true);
    q = await query(s);
    expect(q.viaReader).toEqual(q.single);
    expect(counts(q.single)[7]).toBe(-1);
    expect(counts(q.single)[39]).toBe(4);

    // Expired (not deleted yet: hidden at the read), then deleted by retention.
    clock += 2 * DAY;
    await write(s, 3, 150, 3);
    q = await query(s);
    expect(q.viaReader).toEqual(q.single);
    expect(counts(q.single)[3]).toBe(3);
    expect(counts(q.single)[4]).toBe(0);
    s.enforceRetention();
    expect(s.chunkLists().chunks).toBe(0);
    q = await query(s);
    expect(q.viaReader).toEqual(q.single);
    expect(counts(q.single)[3]).toBe(3);
  });

  it("holds at most the chunks it is given, and reads right with less room than a lookup brings", async () => {
    const s = await open(10);
    for (let k = 0; k < N; k++) await write(s, k, 0, 30);
    s.flushDue(true);
    for (let round = 0; round < 3; round++) {
      const q = await query(s);
      expect(q.viaReader).toEqual(q.single);
      expect(counts(q.single)).toEqual(Array(N).fill(30 + round * 8));
      expect(s.chunkLists().chunks).toBeLessThanOrEqual(10);
      // Sealing more adds to the lists kept, still within the bound.
      for (let k = 0; k < N; k++) await write(s, k, 30 + round * 8, 8);
      s.flushDue(true);
      expect(s.chunkLists().chunks).toBeLessThanOrEqual(10);
    }
    // The lookups stay one a batch of series, not one a series, when few lists fit.
    expect(s.chunkLists().lookups).toBeLessThanOrEqual(3 * 2 * 2);
  });

  it("a query over an older range does not take lists that do not cover it", async () => {
    const s = await open(undefined, 30);
    for (let k = 0; k < N; k++) await write(s, k, 0, 30);
    s.flushDue(true);
    clock = T0 + 3 * DAY; // the range below ends more than a window ago: lists bounded by its end
    const old = await query(s, T0, T0 + 12_000);
    expect(old.viaReader).toEqual(old.single);
    expect(counts(old.single)).toEqual(Array(N).fill(12));
    const lookups = s.chunkLists().lookups;
    const wider = await query(s, T0, T0 + 200_000);
    expect(wider.viaReader).toEqual(wider.single);
    expect(counts(wider.single)).toEqual(Array(N).fill(30));
    expect(s.chunkLists().lookups).toBeGreaterThan(lookups);
  });
});
