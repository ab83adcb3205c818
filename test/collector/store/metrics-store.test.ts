import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { DAY_MS } from "../../../src/metrics/model.ts";

const dirs: string[] = [];
const stores: SqliteMetricsStore[] = [];
async function open(dir?: string, extra: Partial<Parameters<typeof openSqliteMetricsStore>[0]> = {}) {
  const d = dir ?? mkdtempSync(join(tmpdir(), "outpost-store-"));
  if (!dir) dirs.push(d);
  const s = await openSqliteMetricsStore({ dataDir: d, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, ...extra });
  stores.push(s);
  return { s, d };
}
afterEach(async () => {
  for (const s of stores.splice(0)) if (s.ready()) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const NOW = Date.now();
const pts = (n: number, t0: number, step: number, f: (i: number) => number) =>
  Array.from({ length: n }, (_, i) => ({ timestamp: t0 + i * step, value: f(i) }));
const all = { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" as const };

describe("SQLite metrics store", () => {
  it("reads back what was written, in both orders and with a limit", async () => {
    const { s } = await open();
    await s.write("t", [{ type: "gauge", id: "g", points: pts(10, NOW - 10_000, 1000, (i) => i * 1.5) }]);
    const asc = await s.readRaw("t", "gauge", "g", all);
    expect(asc.ts).toEqual(pts(10, NOW - 10_000, 1000, () => 0).map((p) => p.timestamp));
    expect(asc.values).toEqual(pts(10, 0, 1, (i) => i * 1.5).map((p) => p.value));
    const desc = await s.readRaw("t", "gauge", "g", { ...all, order: "desc", limit: 3 });
    expect(desc.values).toEqual([13.5, 12, 10.5]);
  });

  it("keeps one point per timestamp, the last written, before and after flushing", async () => {
    const { s } = await open();
    await s.write("t", [{ type: "counter", id: "c", points: pts(5, NOW - 5000, 1000, (i) => i) }]);
    await s.write("t", [{ type: "counter", id: "c", points: [{ timestamp: NOW - 3000, value: 99 }] }]);
    expect((await s.readRaw("t", "counter", "c", all)).values).toEqual([0, 1, 99, 3, 4]);
    s.flushDue(true);
    await s.write("t", [{ type: "counter", id: "c", points: [{ timestamp: NOW - 4000, value: 77 }] }]);
    const r = await s.readRaw("t", "counter", "c", all);
    expect(r.values).toEqual([0, 77, 99, 3, 4]);
    s.flushDue(true);
    expect((await s.readRaw("t", "counter", "c", all)).values).toEqual([0, 77, 99, 3, 4]);
    expect(s.stats().chunks).toBe(2);
  });

  it("sorts out-of-order points", async () => {
    const { s } = await open();
    await s.write("t", [
      { type: "gauge", id: "g", points: [3, 1, 2, 1].map((k, i) => ({ timestamp: NOW - 10_000 + k * 1000, value: i })) },
    ]);
    const r = await s.readRaw("t", "gauge", "g", all);
    expect(r.ts).toEqual([1, 2, 3].map((k) => NOW - 10_000 + k * 1000));
    expect(r.values).toEqual([3, 2, 0]);
  });

  it("survives an unclean stop: the log is replayed on open", async () => {
    const { s, d } = await open();
    await s.write("t", [{ type: "gauge", id: "g", points: pts(100, NOW - 100_000, 1000, (i) => i) }]);
    s.flushDue(true);
    await s.write("t", [{ type: "gauge", id: "g", points: pts(50, NOW - 50_000 + 500, 1000, (i) => -i) }]);
    await s.write("t", [{ type: "string", id: "s", points: [{ timestamp: NOW - 1, value: "hello", tags: { a: "1" } }] }]);
    // No close(): simulate a crash by opening a second store on the same files.
    const again = (await open(d)).s;
    const r = await again.readRaw("t", "gauge", "g", all);
    expect(r.ts.length).toBe(150);
    const sr = await again.readRaw("t", "string", "s", all);
    expect(sr).toEqual({ ts: [NOW - 1], values: ["hello"], tags: [{ a: "1" }] });
    const def = await again.getMetric("t", "gauge", "g");
    expect(def?.minTimestamp).toBe(NOW - 100_000);
    expect(def?.maxTimestamp).toBe(NOW - 50_000 + 500 + 49_000);
  });

  it("splits chunks at UTC day boundaries and reads ranges across them", async () => {
    const { s } = await open();
    const day0 = Math.floor((NOW - 3 * DAY_MS) / DAY_MS) * DAY_MS;
    const points = pts(3 * 24, day0, 3_600_000, (i) => i);
    await s.write("t", [{ type: "gauge", id: "g", points }]);
    s.flushDue(true);
    expect(s.stats().chunks).toBe(3);
    const r = await s.readRaw("t", "gauge", "g", { start: day0 + 20 * 3_600_000, end: day0 + 30 * 3_600_000, order: "asc" });
    expect(r.values).toEqual(Array.from({ length: 10 }, (_, i) => 20 + i));
  });

  it("hides and later deletes points older than the retention", async () => {
    const { s } = await open();
    await s.createMetric({ tenantId: "t", type: "gauge", id: "g", dataRetention: 2 }, false);
    await s.write("t", [{ type: "gauge", id: "g", points: [5, 3, 1].map((d, i) => ({ timestamp: NOW - d * DAY_MS, value: i })) }]);
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([2]);
    s.flushDue(true);
    s.enforceRetention();
    expect(s.stats().chunks).toBe(1);
    const def = await s.getMetric("t", "gauge", "g");
    expect(def?.minTimestamp).toBe(NOW - DAY_MS);
  });

  it("applies tenant retentions per type when the metric has none", async () => {
    const { s } = await open();
    await s.createTenant({ id: "t", retentions: { gauge: 1 } }, false);
    await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW - 2 * DAY_MS, value: 1 }] }]);
    await s.write("t", [{ type: "counter", id: "c", points: [{ timestamp: NOW - 2 * DAY_MS, value: 1 }] }]);
    expect((await s.readRaw("t", "gauge", "g", all)).ts).toEqual([]);
    expect((await s.readRaw("t", "counter", "c", all)).ts).toEqual([NOW - 2 * DAY_MS]);
  });

  it("never shows one tenant's metrics or points to another", async () => {
    const { s } = await open();
    await s.write("a", [{ type: "gauge", id: "g", points: [{ timestamp: NOW, value: 1 }] }]);
    await s.write("b", [{ type: "gauge", id: "g", points: [{ timestamp: NOW, value: 2 }] }]);
    expect((await s.readRaw("a", "gauge", "g", all)).values).toEqual([1]);
    expect((await s.readRaw("b", "gauge", "g", all)).values).toEqual([2]);
    expect((await s.findMetrics("a")).map((m) => m.tenantId)).toEqual(["a"]);
    expect(await s.getMetric("c", "gauge", "g")).toBeUndefined();
  });

  it("keeps availability as up/down/unknown and definitions with tags across restarts", async () => {
    const { s, d } = await open();
    await s.createMetric({ tenantId: "t", type: "availability", id: "a", tags: { host: "x" } }, false);
    expect(await s.createMetric({ tenantId: "t", type: "availability", id: "a" }, false)).toBe("exists");
    await s.write("t", [{ type: "availability", id: "a", points: ["up", "down", "unknown"].map((v, i) => ({ timestamp: NOW + i, value: v })) }]);
    await s.close();
    const again = (await open(d)).s;
    expect((await again.readRaw("t", "availability", "a", all)).values).toEqual(["up", "down", "unknown"]);
    expect((await again.getMetric("t", "availability", "a"))?.tags).toEqual({ host: "x" });
    expect(again.stats().logBatches).toBe(0);
  });
});

describe("decoded-chunk cache", () => {
  it("serves repeated reads and still sees later writes and retention", async () => {
    const { s } = await open();
    await s.write("t", [{ type: "gauge", id: "c", points: pts(10, NOW - 10_000, 1000, (i) => i) }]);
    s.flushDue(true);
    const first = await s.readRaw("t", "gauge", "c", all);
    expect(first.values).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // A later overwrite lands in a new chunk and wins over the cached one.
    await s.write("t", [{ type: "gauge", id: "c", points: [{ timestamp: NOW - 10_000, value: 100 }] }]);
    s.flushDue(true);
    expect((await s.readRaw("t", "gauge", "c", all)).values[0]).toBe(100);
    // A deleted metric's cached chunks are never served to a new metric of the same name.
    expect(await s.deleteMetric("t", "gauge", "c")).toBe(true);
    await s.write("t", [{ type: "gauge", id: "c", points: [{ timestamp: NOW - 5000, value: -1 }] }]);
    s.flushDue(true);
    expect((await s.readRaw("t", "gauge", "c", all)).values).toEqual([-1]);
  });
});
