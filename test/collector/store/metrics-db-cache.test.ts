/**
 * metrics.db's own page cache is small (state.ts, METRICS_DB_CACHE_KIB): the store caches chunks
 * compressed itself and keeps series, heads and chunk lists in memory, and a 16 MiB SQLite cache
 * was 13–17 MB of the collector's resident peak under remote write from 50,000 new series
 * (issue 28). The connection the store writes through is the one read here; a write of more
 * series than the cache holds pages for still reads back whole after a reopen.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Database } from "bun:sqlite";
import { METRICS_DB_CACHE_KIB, type StoreState } from "../../../collector/store/metrics/sqlite/state.ts";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const dbOf = (store: SqliteMetricsStore): Database => (store as unknown as { s: StoreState }).s.db;

describe("metrics.db's page cache", () => {
  it("is METRICS_DB_CACHE_KIB (4 MiB), and a write past it reads back whole", async () => {
    expect(METRICS_DB_CACHE_KIB).toBe(4096);
    const dataDir = mkdtempSync(join(tmpdir(), "outpost-db-cache-"));
    dirs.push(dataDir);
    const open = () => openSqliteMetricsStore({ dataDir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
    let store = await open();
    expect((dbOf(store).query("PRAGMA cache_size").get() as { cache_size: number }).cache_size).toBe(-METRICS_DB_CACHE_KIB);
    // 20,000 series with long ids: their rows alone are more pages than the cache holds.
    const series = Array.from({ length: 20_000 }, (_, i) => ({ type: "gauge" as const, id: `cache-${i}-${"x".repeat(200)}`, points: [{ timestamp: 1_000 + i, value: i }] }));
    for (let i = 0; i < series.length; i += 5_000) await store.write("t1", series.slice(i, i + 5_000));
    await store.close();
    store = await open();
    try {
      expect((dbOf(store).query("SELECT count(*) AS n FROM series").get() as { n: number }).n).toBe(20_000);
      const pages = dbOf(store).query("PRAGMA page_count").get() as { page_count: number };
      const pageSize = dbOf(store).query("PRAGMA page_size").get() as { page_size: number };
      expect(pages.page_count * pageSize.page_size).toBeGreaterThan(METRICS_DB_CACHE_KIB * 1024);
      const read = await store.readRaw("t1", "gauge", `cache-19999-${"x".repeat(200)}`, { start: 0, end: 100_000, order: "asc" });
      expect(read).toEqual({ ts: [20_999], values: [19_999] });
    } finally {
      await store.close();
    }
  });
});
