/**
 * Columnar writes whose entries carry slots (src/metrics/write-columns.ts' SeriesSlot: remote
 * write's series objects, issue 28), in which the store keeps its handle of each series from one
 * write to the next. A handle must never send points to the wrong place: another tenant's series
 * of the same id, a series deleted since (or whose deletion came between commit and apply), a
 * series whose creating commit failed, or a store closed since.
 */
import { fsync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openSqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import type { SeriesSlot, WriteColumns } from "../../../src/metrics/write-columns.ts";
import { failStatements } from "../../helpers/full-disk.ts";
import { type Backend, type BackendStore, openBackendStore } from "../../helpers/metrics-backends.ts";
import { createTestDatabase, migrateAll, type TestDatabase } from "../../helpers/postgres.ts";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const T0 = Date.now() - 3_600_000;
const all = { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" as const };

/** One point per series at T0 + i s, values `v`, `v + 1`, … in entry order. */
function cols(series: { id: string; slot: SeriesSlot }[], i: number, v: number): WriteColumns {
  return {
    type: "gauge",
    ids: series.map((s) => s.id),
    counts: Uint32Array.from(series, () => 1),
    ts: Float64Array.from(series, () => T0 + i * 1000),
    values: Float64Array.from(series, (_, k) => v + k),
    tags: [],
    slots: series.map((s) => s.slot),
  };
}
const series = (...ids: string[]) => ids.map((id) => ({ id, slot: {} as SeriesSlot }));

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await migrateAll(db.sql);
});
afterAll(() => db.drop());

describe.each<Backend>(["sqlite", "postgres"])("series slots on %s", (backend) => {
  const opened: BackendStore[] = [];
  const open = async () => {
    const b = await openBackendStore(backend, db.sql);
    opened.push(b);
    return b;
  };
  afterEach(async () => {
    for (const b of opened.splice(0)) await b.close();
    await db.sql.unsafe("TRUNCATE metric_tenants, metric_series, metric_blocks, metric_chunks");
  });

  it("lands every write of a series in its own series, write after write", async () => {
    const s = (await open()).store;
    const ss = series("a", "b", "c");
    for (let i = 0; i < 5; i++) await s.writeColumns("t", cols(ss, i, i * 10));
    // Another order, and a series left out: slots follow their entries, not positions.
    await s.writeColumns("t", cols([ss[2]!, ss[0]!], 5, 100));
    expect((await s.readRaw("t", "gauge", "a", all)).values).toEqual([0, 10, 20, 30, 40, 101]);
    expect((await s.readRaw("t", "gauge", "b", all)).values).toEqual([1, 11, 21, 31, 41]);
    expect((await s.readRaw("t", "gauge", "c", all)).values).toEqual([2, 12, 22, 32, 42, 100]);
  });

  it("never mixes two tenants that write the same series through the same slots", async () => {
    const s = (await open()).store;
    const ss = series("x", "y");
    for (let i = 0; i < 4; i++) {
      await s.writeColumns("one", cols(ss, i, 100 + i * 10));
      await s.writeColumns("two", cols(ss, i, 200 + i * 10));
    }
    // Both tenants in one group commit (the writes of one event-loop turn).
    await Promise.all([s.writeColumns("one", cols(ss, 4, 140)), s.writeColumns("two", cols(ss, 4, 240))]);
    expect((await s.readRaw("one", "gauge", "x", all)).values).toEqual([100, 110, 120, 130, 140]);
    expect((await s.readRaw("one", "gauge", "y", all)).values).toEqual([101, 111, 121, 131, 141]);
    expect((await s.readRaw("two", "gauge", "x", all)).values).toEqual([200, 210, 220, 230, 240]);
    expect((await s.readRaw("two", "gauge", "y", all)).values).toEqual([201, 211, 221, 231, 241]);
  });

  it("lands a series deleted between two writes in the series created again, and a deleted tenant's too", async () => {
    const s = (await open()).store;
    const ss = series("d", "e");
    await s.writeColumns("t", cols(ss, 0, 1));
    expect(await s.deleteMetric("t", "gauge", "d")).toBe(true);
    await s.writeColumns("t", cols(ss, 1, 10));
    expect((await s.readRaw("t", "gauge", "d", all)).values).toEqual([10]);
    expect((await s.readRaw("t", "gauge", "e", all)).values).toEqual([2, 11]);
    await s.deleteTenant("t");
    await s.writeColumns("t", cols(ss, 2, 20));
    expect((await s.readRaw("t", "gauge", "d", all)).values).toEqual([20]);
    expect((await s.readRaw("t", "gauge", "e", all)).values).toEqual([21]);
  });

  it("takes slots holding a closed store's handles in the store opened next", async () => {
    const first = await open();
    const ss = series("r");
    await first.store.writeColumns("t", cols(ss, 0, 1));
    // Another store (on SQLite, in another folder) given the same slots: its own series, never the first's.
    const second = await open();
    await first.close();
    await second.store.writeColumns("t", cols(ss, 1, 2));
    await second.store.writeColumns("t", cols(ss, 2, 3));
    const values = (await second.store.readRaw("t", "gauge", "r", all)).values;
    expect(values).toEqual(backend === "postgres" ? [1, 2, 3] : [2, 3]);
  });
});

describe("series slots on SQLite: the store's own moments", () => {
  const stores = sqliteMetricsStoresPerTest("outpost-series-slots-");

  it("skips the points of a series deleted between their commit and their apply, and lands the next write", async () => {
    const held: (() => void)[] = [];
    const store = await stores.open({ synchronous: "FULL", syncLog: (fd, done) => held.push(() => fsync(fd, done)) });
    const ss = series("g", "h");
    const first = store.writeColumns("t", cols(ss, 0, 1));
    await new Promise((r) => setTimeout(r, 20));
    // Committed, awaiting the log's sync: the deletion comes before the points are applied.
    const deleted = store.deleteMetric("t", "gauge", "g");
    // Released until both are answered: a sync round may also sync the database's log first, so
    // the next held sync can come a moment after the last was released.
    let answered = false;
    void Promise.allSettled([first, deleted]).then(() => (answered = true));
    while (!answered) {
      held.shift()?.();
      await new Promise((r) => setTimeout(r, 5));
    }
    await first;
    expect(await deleted).toBe(true);
    expect((await store.readRaw("t", "gauge", "g", all)).values).toEqual([]);
    expect((await store.readRaw("t", "gauge", "h", all)).values).toEqual([2]);
    const next = store.writeColumns("t", cols(ss, 1, 10));
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    held.shift()!();
    await next;
    expect((await store.readRaw("t", "gauge", "g", all)).values).toEqual([10]);
    expect((await store.readRaw("t", "gauge", "h", all)).values).toEqual([2, 11]);
  });

  it("does not keep the handle of a series whose creating commit failed", async () => {
    const store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
    const ss = series("fresh");
    const release = failStatements(join(stores.dir, "metrics.db"), "series");
    await expect(store.writeColumns("t", cols(ss, 0, 1))).rejects.toThrow(/injected failure/);
    release();
    expect(await store.getMetric("t", "gauge", "fresh")).toBeUndefined();
    await store.writeColumns("t", cols(ss, 1, 2));
    await store.writeColumns("t", cols(ss, 2, 3));
    expect((await store.readRaw("t", "gauge", "fresh", all)).values).toEqual([2, 3]);
    expect((await store.getMetric("t", "gauge", "fresh"))?.id).toBe("fresh");
  });

  it("lands the writes after a restart on the same files in the series they had", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-series-slots-restart-"));
    try {
      const ss = series("p", "q");
      const a = await openSqliteMetricsStore({ dataDir: dir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
      await a.writeColumns("t", cols(ss, 0, 1));
      await a.writeColumns("u", cols(ss, 0, 50));
      await a.close();
      const b = await openSqliteMetricsStore({ dataDir: dir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
      // A new series first, so that sids differ from the first store's had they been taken over.
      await b.writeColumns("t", cols(series("new"), 0, 0));
      await b.writeColumns("t", cols(ss, 1, 10));
      await b.writeColumns("u", cols(ss, 1, 60));
      expect((await b.readRaw("t", "gauge", "p", all)).values).toEqual([1, 10]);
      expect((await b.readRaw("t", "gauge", "q", all)).values).toEqual([2, 11]);
      expect((await b.readRaw("u", "gauge", "p", all)).values).toEqual([50, 60]);
      expect((await b.readRaw("u", "gauge", "q", all)).values).toEqual([51, 61]);
      expect((await b.readRaw("t", "gauge", "new", all)).values).toEqual([0]);
      await b.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
