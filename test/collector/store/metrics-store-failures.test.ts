import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteMetricsStore, type SqliteMetricsStore, type SqliteMetricsStoreOptions } from "../../../collector/store/metrics/sqlite/store.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { storageFailure } from "../../../src/sqlite/storage-failure.ts";
import { StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { failStatements, SmallDisk } from "../../helpers/full-disk.ts";
import { waitFor } from "../../helpers/ports.ts";
import { ALL_ASC, gaugeWrites } from "../../helpers/temp-metrics-store.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function logLines() {
  const lines: string[] = [];
  return { lines, log: createLogger("info", "test", (l) => lines.push(l)) };
}

async function open(dir: string, health?: StorageHealth, more: Partial<SqliteMetricsStoreOptions> = {}): Promise<SqliteMetricsStore> {
  const s = await openSqliteMetricsStore({ dataDir: dir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, health, ...more });
  cleanups.push(async () => {
    if (s.ready()) await s.close();
  });
  return s;
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "outpost-store-fail-"));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

/** A small disk to fill, and the storage health watching it, with the lines it logs. */
function fullDiskSetup() {
  const disk = new SmallDisk(8);
  cleanups.push(() => disk.dispose());
  const { lines, log } = logLines();
  const health = new StorageHealth({ log, probeIntervalMs: 100 });
  cleanups.push(() => health.close());
  return { disk, lines, health };
}

const T0 = Date.now() - 3_600_000;
const all = ALL_ASC;
const gauge = gaugeWrites(T0);

describe("metrics store: a commit that fails changes nothing in memory", () => {
  it("keeps the heads when the flush transaction fails, and flushes them later: no acknowledged point is lost", async () => {
    const dir = tempDir();
    const s = await open(dir);
    await s.write("t", [gauge("a", 0, 100), gauge("b", 0, 50)]);
    // A step of the flush transaction (a series' flushed mark) fails, as a commit on a full disk does.
    const release = failStatements(join(dir, "metrics.db"), "series", "UPDATE");
    expect(() => s.flushDue(true)).toThrow(/injected failure/);
    // The points are still read from the heads, and the log still holds them.
    expect((await s.readRaw("t", "gauge", "a", all)).ts).toHaveLength(100);
    expect(s.stats()).toMatchObject({ headPoints: 150, chunks: 0, logBatches: 1 });
    // A later write and a later flush (the defect: it deleted the log rows of the failed one).
    await s.write("t", [gauge("a", 100, 10)]);
    release();
    s.flushDue(true);
    expect(s.stats()).toMatchObject({ headPoints: 0, logBatches: 0 });
    await s.close();
    const again = await open(dir);
    expect((await again.readRaw("t", "gauge", "a", all)).values).toEqual(Array.from({ length: 110 }, (_, i) => i));
    expect((await again.readRaw("t", "gauge", "b", all)).ts).toHaveLength(50);
  });

  it("keeps heads and log when a chunk insert fails, across a restart", async () => {
    const dir = tempDir();
    const s = await open(dir);
    await s.write("t", [gauge("a", 0, 20)]);
    const release = failStatements(join(dir, "metrics.db"), "chunks");
    expect(() => s.flushDue(true)).toThrow();
    release();
    // An unclean stop: the store is dropped without closing; the log is replayed on open.
    const again = await open(dir);
    expect((await again.readRaw("t", "gauge", "a", all)).ts).toHaveLength(20);
  });

  it("does not register series or tenants whose creating transaction failed", async () => {
    const dir = tempDir();
    const s = await open(dir);
    const release = failStatements(join(dir, "metrics.db"), "series");
    await expect(s.write("new-tenant", [gauge("fresh", 0, 5)])).rejects.toThrow(/injected failure/);
    expect(await s.getMetric("new-tenant", "gauge", "fresh")).toBeUndefined();
    expect(await s.getTenant("new-tenant")).toBeUndefined();
    release();
    await s.write("new-tenant", [gauge("fresh", 0, 5)]);
    expect((await s.getMetric("new-tenant", "gauge", "fresh"))?.id).toBe("fresh");
    expect(await s.getTenant("new-tenant")).toEqual({ id: "new-tenant" });
  });

  it("keeps the stored definition in memory when a tag update fails", async () => {
    const dir = tempDir();
    const s = await open(dir);
    await s.createMetric({ tenantId: "t", id: "m", type: "gauge", tags: { a: "1" } }, false);
    const release = failStatements(join(dir, "metrics.db"), "series", "UPDATE");
    await expect(s.updateTags("t", "gauge", "m", { b: "2" })).rejects.toThrow();
    await expect(s.deleteTags("t", "gauge", "m", ["a"])).rejects.toThrow();
    await expect(s.createMetric({ tenantId: "t", id: "m", type: "gauge", tags: { c: "3" }, dataRetention: 3 }, true)).rejects.toThrow();
    expect(await s.getMetric("t", "gauge", "m")).toMatchObject({ tags: { a: "1" }, dataRetention: 7 });
    await expect(s.createMetric({ tenantId: "t2", id: "x", type: "gauge" }, false)).resolves.toBe("created");
    release();
  });

  it("keeps a series' bounds when the retention pass fails, and applies them when it runs again", async () => {
    const dir = tempDir();
    let clock = Date.now();
    const start = clock;
    const s = await openSqliteMetricsStore({ dataDir: dir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, now: () => clock });
    cleanups.push(async () => {
      if (s.ready()) await s.close();
    });
    await s.createMetric({ tenantId: "t", type: "gauge", id: "r", dataRetention: 1 }, false);
    await s.write("t", [gauge("r", 0, 10)]);
    s.flushDue(true);
    clock = start + 2 * 86_400_000;
    const release = failStatements(join(dir, "metrics.db"), "series", "UPDATE");
    expect(() => s.enforceRetention()).toThrow(/injected failure/);
    // Rolled back: the chunk is still on disk and the definition keeps its bounds.
    expect(s.stats().chunks).toBe(1);
    expect((await s.getMetric("t", "gauge", "r"))?.minTimestamp).toBe(T0);
    release();
    s.enforceRetention();
    expect(s.stats().chunks).toBe(0);
    expect((await s.getMetric("t", "gauge", "r"))?.minTimestamp).toBeUndefined();
  });
});

describe("metrics store on a full disk", () => {
  it("keeps the heads when a flush due at once finds the disk full, and says so: no crash", async () => {
    const { disk, lines, health } = fullDiskSetup();
    const s = await open(disk.dir, health, { synchronous: "FULL", maxHeadPoints: 1000 });
    await s.write("t", [gauge("a", 0, 10), gauge("b", 0, 10)]);
    disk.fill();
    // Acknowledged into the log's prepared space; the heads are over their budget, so a flush
    // runs after this turn and cannot commit (it threw out of a timer: the process stopped).
    await s.write("t", [gauge("a", 10, 1500)]);
    await waitFor("the flush's failure reported", () => (health.failing === "full" ? true : undefined), 5000);
    expect(lines.filter((l) => l.includes("storage is full"))).toHaveLength(1);
    expect((await s.readRaw("t", "gauge", "a", all)).values).toHaveLength(1510);
    disk.free();
    s.flushDue(true);
    expect(s.stats()).toMatchObject({ headPoints: 0 });
    expect((await s.readRaw("t", "gauge", "a", all)).values).toHaveLength(1510);
  });

  it("refuses writes with SQLITE_FULL, keeps reading, logs once, and takes writes again once space returns", async () => {
    const { disk, lines, health } = fullDiskSetup();
    const s = await open(disk.dir, health);
    const acknowledged: ReturnType<typeof gauge>[] = [];
    let next = 0;
    const writeOne = async () => {
      const w = gauge(`m${next % 5}`, next, 200);
      await s.write("t", [w]);
      acknowledged.push(w);
      next += 200;
    };
    await writeOne();
    s.flushDue(true);
    disk.fill();
    let refused: unknown;
    // The log's prepared space (a megabyte of zeros written ahead) takes the first of them.
    for (let i = 0; i < 2000 && refused === undefined; i++) {
      try {
        await writeOne();
      } catch (e) {
        refused = e;
      }
      // A flush that finds no room keeps its heads (and says why); the writes go on into the log.
      try {
        if (i % 10 === 0) s.flushDue(true);
      } catch (e) {
        expect(storageFailure(e)).toBe("full");
      }
    }
    expect(storageFailure(refused)).toBe("full");
    expect(health.failing).toBe("full");
    // More refusals, and failing maintenance, log nothing more.
    await expect(s.write("t", [gauge("m0", 1_000_000, 200)])).rejects.toThrow();
    try {
      s.flushDue(true);
    } catch (e) {
      expect(storageFailure(e)).toBe("full");
    }
    expect(lines.filter((l) => l.includes("storage is full"))).toHaveLength(1);
    // Reads go on.
    const read = await s.readRaw("t", "gauge", "m0", all);
    expect(read.ts.length).toBeGreaterThan(0);

    disk.free();
    await waitFor("storage health to clear", () => (health.failing === undefined ? true : undefined), 5000);
    expect(lines.filter((l) => l.includes("storage takes writes again"))).toHaveLength(1);
    await writeOne();
    s.flushDue(true);
    await s.close();

    const again = await open(disk.dir);
    const expected = new Map<string, number[]>();
    for (const w of acknowledged) expected.set(w.id, [...(expected.get(w.id) ?? []), ...w.points.map((p) => p.timestamp)]);
    for (const [id, ts] of expected) {
      const got = await again.readRaw("t", "gauge", id, all);
      expect(got.ts).toEqual(ts.sort((a, b) => a - b));
    }
  });
});
