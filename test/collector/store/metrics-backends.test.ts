import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS } from "../../../src/metrics/model.ts";
import { type Backend, type BackendOptions, type BackendStore, openBackendStore } from "../../helpers/metrics-backends.ts";
import { createTestDatabase, migrateAll, type TestDatabase } from "../../helpers/postgres.ts";

/** The metrics store interface's behaviour, the same on SQLite and on PostgreSQL. */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await migrateAll(db.sql);
});
afterAll(() => db.drop());

const NOW = Date.now();
const pts = (n: number, t0: number, step: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => ({ timestamp: t0 + i * step, value: f(i) }));
const all = { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" as const };

describe.each<Backend>(["sqlite", "postgres"])("metrics store on %s", (backend) => {
  const opened: BackendStore[] = [];
  const open = async (o: BackendOptions = {}) => {
    const b = await openBackendStore(backend, db.sql, o);
    opened.push(b);
    return b;
  };
  afterEach(async () => {
    for (const b of opened.splice(0)) await b.close();
    await db.sql.unsafe("TRUNCATE metric_tenants, metric_series, metric_blocks, metric_chunks");
  });

  it("reads back what was written, in both orders and with a limit", async () => {
    const { store: s } = await open();
    await s.write("t", [{ type: "gauge", id: "g", points: pts(10, NOW - 10_000, 1000, (i) => i * 1.5) }]);
    const asc = await s.readRaw("t", "gauge", "g", all);
    expect(asc.ts).toEqual(pts(10, NOW - 10_000, 1000, () => 0).map((p) => p.timestamp));
    expect(asc.values).toEqual(pts(10, 0, 1, (i) => i * 1.5).map((p) => p.value));
    expect((await s.readRaw("t", "gauge", "g", { ...all, order: "desc", limit: 3 })).values).toEqual([13.5, 12, 10.5]);
    expect(await s.readRaw("t", "gauge", "nope", all)).toEqual({ ts: [], values: [] });
    expect(await s.readSeries("t", "gauge", "nope", 0, NOW)).toBeUndefined();
  });

  it("keeps one point per timestamp, the last written, before and after sealing", async () => {
    const b = await open();
    const s = b.store;
    await s.write("t", [{ type: "counter", id: "c", points: pts(5, NOW - 5000, 1000, (i) => i) }]);
    await s.write("t", [{ type: "counter", id: "c", points: [{ timestamp: NOW - 3000, value: 99 }] }]);
    expect((await s.readRaw("t", "counter", "c", all)).values).toEqual([0, 1, 99, 3, 4]);
    await b.seal();
    await s.write("t", [{ type: "counter", id: "c", points: [{ timestamp: NOW - 4000, value: 77 }] }]);
    expect((await s.readRaw("t", "counter", "c", all)).values).toEqual([0, 77, 99, 3, 4]);
    await b.seal();
    expect((await s.readRaw("t", "counter", "c", all)).values).toEqual([0, 77, 99, 3, 4]);
    expect(await b.chunks()).toBe(2);
    // The same timestamp twice in one write: the later one.
    await s.write("t", [{ type: "counter", id: "c", points: [{ timestamp: NOW, value: 1 }, { timestamp: NOW, value: 2 }] }]);
    expect((await s.readRaw("t", "counter", "c", { ...all, order: "desc", limit: 1 })).values).toEqual([2]);
  });

  it("keeps staleness markers (NaN) through sealing: series reads have them, raw reads leave them out before the limit", async () => {
    const b = await open();
    const s = b.store;
    const values = [1, Number.NaN, 2, 3, Number.NaN];
    await s.write("t", [{ type: "gauge", id: "g", points: values.map((value, i) => ({ timestamp: NOW + i * 1000, value })) }]);
    for (let round = 0; round < 2; round++) {
      const series = await s.readSeries("t", "gauge", "g", NOW, NOW + 10_000);
      expect([...series!.values]).toEqual(values);
      expect(await s.readRaw("t", "gauge", "g", all)).toEqual({ ts: [NOW, NOW + 2000, NOW + 3000], values: [1, 2, 3] });
      expect((await s.readRaw("t", "gauge", "g", { ...all, order: "desc", limit: 2 })).values).toEqual([3, 2]);
      await b.seal();
    }
    // A sample written over a marker replaces it, and the other way round.
    await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW + 1000, value: 7 }, { timestamp: NOW + 3000, value: Number.NaN }] }]);
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([1, 7, 2]);
    await b.seal();
    expect([...(await s.readSeries("t", "gauge", "g", NOW, NOW + 10_000))!.values]).toEqual([1, 7, 2, Number.NaN, Number.NaN]);
  });

  it("keeps strings, availability, tags and odd numbers through sealing", async () => {
    const b = await open();
    const s = b.store;
    await s.write("t", [
      { type: "string", id: "s", points: [{ timestamp: NOW - 2, value: 'a "quoted" \\ {x,y}', tags: { k: "v" } }, { timestamp: NOW - 1, value: "" }] },
      { type: "availability", id: "a", points: ["up", "down", "unknown"].map((v, i) => ({ timestamp: NOW + i, value: v })) },
      { type: "gauge", id: "g", points: [Number.POSITIVE_INFINITY, -0.5, 1e300].map((v, i) => ({ timestamp: NOW + i, value: v })) },
    ]);
    for (let round = 0; round < 2; round++) {
      expect(await s.readRaw("t", "string", "s", all)).toEqual({ ts: [NOW - 2, NOW - 1], values: ['a "quoted" \\ {x,y}', ""], tags: [{ k: "v" }, undefined] });
      expect((await s.readRaw("t", "availability", "a", all)).values).toEqual(["up", "down", "unknown"]);
      expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([Number.POSITIVE_INFINITY, -0.5, 1e300]);
      expect(await s.readSeries("t", "string", "s", 0, NOW + 10)).toBeUndefined();
      await b.seal();
    }
  });

  it("splits sealed chunks at UTC day boundaries and reads ranges across them", async () => {
    const b = await open();
    const day0 = Math.floor((NOW - 3 * DAY_MS) / DAY_MS) * DAY_MS;
    await b.store.write("t", [{ type: "gauge", id: "g", points: pts(3 * 24, day0, 3_600_000, (i) => i) }]);
    await b.seal();
    expect(await b.chunks()).toBe(3);
    const r = await b.store.readRaw("t", "gauge", "g", { start: day0 + 20 * 3_600_000, end: day0 + 30 * 3_600_000, order: "asc" });
    expect(r.values).toEqual(Array.from({ length: 10 }, (_, i) => 20 + i));
  });

  it("counts retention from the time a point was written, and drops expired chunks and bounds", async () => {
    let clock = NOW;
    const b = await open({ now: () => clock });
    const s = b.store;
    await s.createMetric({ tenantId: "t", type: "gauge", id: "g", dataRetention: 2 }, false);
    await s.write("t", [{ type: "gauge", id: "g", points: [5, 3, 1].map((d, i) => ({ timestamp: NOW - d * DAY_MS, value: i })) }]);
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([0, 1, 2]);
    await b.seal();
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([0, 1, 2]);
    expect((await s.getMetric("t", "gauge", "g"))?.minTimestamp).toBe(NOW - 5 * DAY_MS);
    clock = NOW + DAY_MS;
    await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW - 4 * DAY_MS, value: 9 }] }]);
    await b.seal();
    clock = NOW + 2 * DAY_MS - 1;
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([0, 9, 1, 2]);
    clock = NOW + 2 * DAY_MS;
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([9]);
    await b.enforceRetention();
    expect(await b.chunks()).toBe(1);
    const def = await s.getMetric("t", "gauge", "g");
    expect([def?.minTimestamp, def?.maxTimestamp]).toEqual([NOW - 4 * DAY_MS, NOW - 4 * DAY_MS]);
    clock = NOW + 3 * DAY_MS;
    await b.enforceRetention();
    expect(await b.chunks()).toBe(0);
    expect((await s.getMetric("t", "gauge", "g"))?.minTimestamp).toBeUndefined();
  });

  it("applies tenant retentions per type, fixed when the points are written", async () => {
    let clock = NOW;
    const b = await open({ now: () => clock });
    const s = b.store;
    expect(await s.createTenant({ id: "t", retentions: { gauge: 1 } }, false)).toBe("created");
    await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW - 2 * DAY_MS, value: 1 }] }]);
    await s.write("t", [{ type: "counter", id: "c", points: [{ timestamp: NOW - 2 * DAY_MS, value: 1 }] }]);
    // (SQLite fixes a point's retention when it seals its head, PostgreSQL when it is written.)
    await b.seal();
    expect(await s.createTenant({ id: "t", retentions: { gauge: 30 } }, false)).toBe("exists");
    expect(await s.createTenant({ id: "t", retentions: { gauge: 30 } }, true)).toBe("overwritten");
    expect(await s.getTenant("t")).toEqual({ id: "t", retentions: { gauge: 30 } });
    clock = NOW + DAY_MS;
    expect((await s.readRaw("t", "gauge", "g", all)).ts).toEqual([]);
    expect((await s.readRaw("t", "counter", "c", all)).ts).toEqual([NOW - 2 * DAY_MS]);
  });

  it("keeps definitions and tags: create, overwrite, merge, ensure, delete names", async () => {
    const { store: s } = await open();
    expect(await s.createMetric({ tenantId: "t", type: "availability", id: "a", tags: { host: "x" } }, false)).toBe("created");
    expect(await s.createMetric({ tenantId: "t", type: "availability", id: "a" }, false)).toBe("exists");
    expect(await s.createMetric({ tenantId: "t", type: "availability", id: "a", tags: { host: "y" }, dataRetention: 3 }, true)).toBe("overwritten");
    expect(await s.getMetric("t", "availability", "a")).toEqual({ tenantId: "t", id: "a", type: "availability", tags: { host: "y" }, dataRetention: 3 });
    await s.updateTags("t", "availability", "a", { dc: "1" });
    await s.updateTags("t", "gauge", "new", { k: "v" });
    expect((await s.getMetric("t", "availability", "a"))?.tags).toEqual({ host: "y", dc: "1" });
    expect((await s.getMetric("t", "gauge", "new"))?.tags).toEqual({ k: "v" });
    expect(await s.deleteTags("t", "availability", "a", ["host", "dc"])).toBe(true);
    expect((await s.getMetric("t", "availability", "a"))?.tags).toBeUndefined();
    expect(await s.deleteTags("t", "gauge", "missing", ["x"])).toBe(false);
    await s.ensureTags("t", [
      { type: "gauge", id: "new", tags: { k: "w" } },
      { type: "counter", id: "c2", tags: {} },
    ]);
    expect((await s.getMetric("t", "gauge", "new"))?.tags).toEqual({ k: "w" });
    expect((await s.getMetric("t", "counter", "c2"))?.tags).toBeUndefined();
    expect((await s.findMetrics("t")).map((m) => `${m.type}:${m.id}`)).toEqual(["availability:a", "counter:c2", "gauge:new"]);
    expect((await s.findMetrics("t", { type: "gauge" })).map((m) => m.id)).toEqual(["new"]);
    expect((await s.findMetrics("t", { ids: ["new", "a", "zz"] })).map((m) => `${m.type}:${m.id}`)).toEqual(["gauge:new", "availability:a"]);
    await s.write("t", [{ type: "gauge", id: "new", points: [{ timestamp: NOW, value: 1 }, { timestamp: NOW - 5, value: 2 }] }]);
    const entry = (await s.listSeries("t")).find((e) => e.id === "new");
    expect([entry?.minTs, entry?.maxTs, entry?.tags]).toEqual([NOW - 5, NOW, { k: "w" }]);
    expect((await s.listTenants()).map((t) => t.id)).toEqual(["t"]);
  });

  it("deletes metrics and tenants with all their points; never shows one tenant's data to another", async () => {
    const b = await open();
    const s = b.store;
    await s.write("a", [{ type: "gauge", id: "g", points: [{ timestamp: NOW, value: 1 }] }]);
    await s.write("b", [{ type: "gauge", id: "g", points: [{ timestamp: NOW, value: 2 }] }]);
    expect((await s.readRaw("a", "gauge", "g", all)).values).toEqual([1]);
    expect((await s.readRaw("b", "gauge", "g", all)).values).toEqual([2]);
    expect((await s.findMetrics("a")).map((m) => m.tenantId)).toEqual(["a"]);
    expect(await s.getMetric("c", "gauge", "g")).toBeUndefined();
    await b.seal();
    await s.write("a", [{ type: "gauge", id: "g", points: [{ timestamp: NOW + 1, value: 3 }] }]);
    expect(await s.deleteMetric("a", "gauge", "g")).toBe(true);
    expect(await s.deleteMetric("a", "gauge", "g")).toBe(false);
    expect(await s.readRaw("a", "gauge", "g", all)).toEqual({ ts: [], values: [] });
    // A metric of the same name starts empty.
    await s.write("a", [{ type: "gauge", id: "g", points: [{ timestamp: NOW + 2, value: 4 }] }]);
    expect((await s.readRaw("a", "gauge", "g", all)).values).toEqual([4]);
    await s.deleteTenant("b");
    expect(await s.getTenant("b")).toBeUndefined();
    expect(await s.findMetrics("b")).toEqual([]);
    expect((await s.readRaw("b", "gauge", "g", all)).values).toEqual([]);
    expect((await s.listTenants()).map((t) => t.id)).toEqual(["a"]);
  });

  it("has every acknowledged point after a close and a new open", async () => {
    const b = await open();
    await b.store.write("t", [{ type: "gauge", id: "g", points: pts(100, NOW - 100_000, 1000, (i) => i) }]);
    await b.seal();
    await b.store.write("t", [{ type: "gauge", id: "g", points: pts(50, NOW - 50_000 + 500, 1000, (i) => -i) }]);
    if (backend === "sqlite") return; // SQLite's restart is its own suite's (metrics-store.test.ts): one folder per store here
    const again = await open();
    expect((await again.store.readRaw("t", "gauge", "g", all)).ts.length).toBe(150);
    const def = await again.store.getMetric("t", "gauge", "g");
    expect([def?.minTimestamp, def?.maxTimestamp]).toEqual([NOW - 100_000, NOW - 50_000 + 500 + 49_000]);
  });
});
