import { SQL } from "bun";
import { describe, expect, it } from "vitest";
import { PostgresMetricsStore } from "../../../collector/store/metrics/postgres/store.ts";
import { createLogger } from "../../../src/log/logger.ts";
import { CorruptDataError } from "../../../src/sqlite/corrupt-data.ts";
import { storageFailure } from "../../../src/sqlite/storage-failure.ts";
import { StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { body, startTestCollector } from "../../helpers/collector.ts";
import { failPostgresStatements, metricsTestDatabase, PostgresProxy } from "../../helpers/postgres.ts";

/**
 * What only the PostgreSQL metrics store has to show: several collectors on one database (each
 * a store with its own pool) see every acknowledged point at once, seal concurrently without
 * losing or doubling one, and refuse corrupt chunks and an unreachable server as the SQLite
 * store refuses its own failures.
 */
const { db, cleanups } = metricsTestDatabase();

const NOW = Date.now();
const all = { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" as const };

/** A "collector": a store on a pool of its own. */
async function collector(opts: { chunkPoints?: number; sql?: SQL } = {}) {
  const sql = opts.sql ?? new SQL(db.url, { max: 3 });
  const s = new PostgresMetricsStore({ sql, maintenanceIntervalMs: 3_600_000, chunkPoints: opts.chunkPoints });
  await s.open();
  cleanups.push(async () => {
    await s.close();
    if (!opts.sql) await sql.close({ timeout: 1 });
  });
  return s;
}

describe("PostgreSQL metrics store shared by several collectors", () => {
  it("shows a point acknowledged by one collector to the others at once, sealed or not", async () => {
    const a = await collector();
    const b = await collector();
    await a.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW, value: 1, tags: { k: "v" } }] }]);
    expect(await b.readRaw("t", "gauge", "g", all)).toEqual({ ts: [NOW], values: [1], tags: [{ k: "v" }] });
    expect((await b.getMetric("t", "gauge", "g"))?.maxTimestamp).toBe(NOW);
    await b.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW + 1, value: 2 }] }]);
    expect(await b.seal(true)).toBe(1);
    await a.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW + 2, value: 3 }] }]);
    expect((await a.readRaw("t", "gauge", "g", all)).values).toEqual([1, 2, 3]);
    expect((await b.readRaw("t", "gauge", "g", all)).values).toEqual([1, 2, 3]);
    await a.updateTags("t", "gauge", "g", { x: "1" });
    await b.updateTags("t", "gauge", "g", { y: "2" });
    expect((await a.getMetric("t", "gauge", "g"))?.tags).toEqual({ x: "1", y: "2" });
    expect(await b.deleteMetric("t", "gauge", "g")).toBe(true);
    expect(await a.readRaw("t", "gauge", "g", all)).toEqual({ ts: [], values: [] });
  });

  it("loses and doubles no point when collectors seal and write concurrently", async () => {
    const stores = await Promise.all([collector({ chunkPoints: 16 }), collector({ chunkPoints: 16 }), collector({ chunkPoints: 16 })]);
    const series = ["a", "b", "c", "d"];
    const rounds = 30;
    const perWrite = 7;
    let sealed = 0;
    let writing = true;
    // Every store seals while all of them write, overwriting some timestamps with the same value.
    const sealers = stores.map(async (s) => {
      while (writing) sealed += await s.seal(true);
    });
    await Promise.all(
      stores.map(async (s, k) => {
        for (let r = 0; r < rounds; r++) {
          const t0 = NOW + (k * rounds + r) * perWrite;
          await s.write(
            "t",
            series.map((id) => ({ type: "gauge" as const, id, points: Array.from({ length: perWrite }, (_, i) => ({ timestamp: t0 + i, value: t0 + i })) })),
          );
          // Rewrite a point written before (by this store): the value is its timestamp either way.
          if (r > 0) await s.write("t", [{ type: "gauge", id: "a", points: [{ timestamp: t0 - 1, value: t0 - 1 }] }]);
        }
      }),
    );
    writing = false;
    await Promise.all(sealers);
    await stores[0]!.seal(true);
    expect(sealed).toBeGreaterThan(0);
    const total = stores.length * rounds * perWrite;
    for (const id of series) {
      const r = await stores[1]!.readRaw("t", "gauge", id, all);
      expect(r.ts.length).toBe(total);
      expect(new Set(r.ts).size).toBe(total);
      expect(r.values).toEqual(r.ts);
    }
    const [sum] = await db.sql.unsafe("SELECT (SELECT coalesce(sum(n), 0) FROM metric_chunks)::int AS n, (SELECT count(*) FROM metric_blocks)::int AS p");
    // Every point is in exactly one chunk (a rewritten one in two, the later winning on read).
    expect(sum.p).toBe(0);
    expect(sum.n).toBeGreaterThanOrEqual(series.length * total);
    expect(sum.n).toBeLessThanOrEqual(series.length * total + stores.length * (rounds - 1));
  });
});

describe("PostgreSQL metrics store: a block per series and write", () => {
  it("stores a write as one block per series, and reads the points of each", async () => {
    const s = await collector();
    await s.write("t", [
      { type: "gauge", id: "a", points: [1, 2, 3].map((i) => ({ timestamp: NOW + i, value: i })) },
      { type: "gauge", id: "b", points: [{ timestamp: NOW, value: 5, tags: { k: "v" } }] },
      { type: "string", id: "a", points: [{ timestamp: NOW, value: "x" }] },
      { type: "availability", id: "a", points: [{ timestamp: NOW, value: "down" }] },
      // The same series again in one write: the same block, the later point winning.
      { type: "gauge", id: "a", points: [{ timestamp: NOW + 2, value: 20 }] },
    ]);
    expect(await s.stats()).toEqual({ points: 6, blocks: 4, chunks: 0 });
    expect((await s.readRaw("t", "gauge", "a", all)).values).toEqual([1, 20, 3]);
    expect(await s.readRaw("t", "gauge", "b", all)).toEqual({ ts: [NOW], values: [5], tags: [{ k: "v" }] });
    expect((await s.readRaw("t", "string", "a", all)).values).toEqual(["x"]);
    expect((await s.readRaw("t", "availability", "a", all)).values).toEqual(["down"]);
    expect(await s.getMetric("t", "gauge", "a")).toMatchObject({ minTimestamp: NOW + 1, maxTimestamp: NOW + 3 });
  });

  it("reads a point written twice through two collectors once, the last write winning, before and after sealing", async () => {
    const a = await collector();
    const b = await collector();
    const write = (s: PostgresMetricsStore, v: number, dt = 0) => s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW + dt, value: v }] }]);
    await write(a, 1);
    await write(b, 1);
    expect(await a.readRaw("t", "gauge", "g", all)).toEqual({ ts: [NOW], values: [1] });
    await write(a, 2);
    expect((await b.readRaw("t", "gauge", "g", all)).values).toEqual([2]);
    expect(await b.seal(true)).toBe(1);
    expect(await a.stats()).toEqual({ points: 0, blocks: 0, chunks: 1 });
    expect((await a.readRaw("t", "gauge", "g", all)).values).toEqual([2]);
    // Written after the seal: newer than the chunk, whichever collector writes or reads.
    await write(b, 3);
    await write(a, 4, 1);
    expect(await a.readRaw("t", "gauge", "g", all)).toEqual({ ts: [NOW, NOW + 1], values: [3, 4] });
    await a.seal(true);
    expect(await b.readRaw("t", "gauge", "g", all)).toEqual({ ts: [NOW, NOW + 1], values: [3, 4] });
    expect(await a.stats()).toEqual({ points: 0, blocks: 0, chunks: 2 });
  });

  it("deletes a metric's and a tenant's blocks with them, and drops at the seal blocks whose series is gone", async () => {
    const s = await collector();
    await s.write("t", [
      { type: "gauge", id: "a", points: [{ timestamp: NOW, value: 1 }] },
      { type: "gauge", id: "b", points: [{ timestamp: NOW, value: 2 }] },
    ]);
    await s.write("u", [{ type: "gauge", id: "a", points: [{ timestamp: NOW, value: 3 }] }]);
    expect(await s.deleteMetric("t", "gauge", "a")).toBe(true);
    expect(await s.stats()).toMatchObject({ blocks: 2 });
    await s.deleteTenant("u");
    expect(await s.stats()).toMatchObject({ blocks: 1 });
    expect((await s.readRaw("t", "gauge", "b", all)).values).toEqual([2]);
    // A block committed by a write that raced the deletion of its series (sids are never reused).
    await db.sql.unsafe("INSERT INTO metric_blocks (part, sid, start_ts, end_ts, n, written, expires_at, body) SELECT 0, 999999, 0, 0, 1, 0, 9e15, body FROM metric_blocks LIMIT 1");
    expect(await s.seal(true)).toBe(1);
    expect(await s.stats()).toEqual({ points: 0, blocks: 0, chunks: 1 });
  });

  it("gives a block the expiry of its series' retention when written, and drops it at retention", async () => {
    let now = NOW;
    const sql = new SQL(db.url, { max: 2 });
    const s = new PostgresMetricsStore({ sql, maintenanceIntervalMs: 3_600_000, now: () => now });
    await s.open();
    cleanups.push(async () => {
      await s.close();
      await sql.close({ timeout: 1 });
    });
    await s.createMetric({ tenantId: "t", id: "short", type: "gauge", dataRetention: 1 }, false);
    await s.write("t", [
      { type: "gauge", id: "short", points: [{ timestamp: NOW, value: 1 }] },
      { type: "gauge", id: "long", points: [{ timestamp: NOW, value: 2 }] },
    ]);
    now = NOW + 86_400_000 + 1;
    expect((await s.readRaw("t", "gauge", "short", all)).values).toEqual([]);
    expect((await s.readRaw("t", "gauge", "long", all)).values).toEqual([2]);
    await s.enforceRetention();
    expect(await s.stats()).toEqual({ points: 1, blocks: 1, chunks: 0 });
  });
});

describe("PostgreSQL metrics store failures", () => {
  it("refuses reads of a corrupt chunk with CorruptDataError, logged once with the metric's name; the rest reads on", async () => {
    const lines: string[] = [];
    const log = createLogger("error", "metrics-store", (l) => lines.push(l), "json");
    const s = new PostgresMetricsStore({ sql: db.sql, log, maintenanceIntervalMs: 3_600_000 });
    await s.open();
    cleanups.push(() => s.close());
    await s.write("t", [
      { type: "gauge", id: "bad", points: [{ timestamp: NOW, value: 1 }, { timestamp: NOW + 1, value: 2 }] },
      { type: "gauge", id: "good", points: [{ timestamp: NOW, value: 3 }] },
    ]);
    await s.seal(true);
    await db.sql.unsafe(
      "UPDATE metric_chunks SET body = set_byte(body, length(body) - 3, get_byte(body, length(body) - 3) # 255) WHERE sid = (SELECT sid FROM metric_series WHERE metric = 'bad')",
    );
    await expect(s.readRaw("t", "gauge", "bad", all)).rejects.toBeInstanceOf(CorruptDataError);
    await expect(s.readSeries("t", "gauge", "bad", 0, NOW + 10)).rejects.toThrow(/gauge metric 'bad' is corrupt/);
    expect((await s.readRaw("t", "gauge", "good", all)).values).toEqual([3]);
    // A range that does not touch the chunk reads on.
    expect((await s.readRaw("t", "gauge", "bad", { ...all, start: NOW + 2 * 86_400_000 })).values).toEqual([]);
    expect(lines.filter((l) => l.includes("corrupt chunk")).length).toBe(1);
    expect(lines.join("\n")).toContain('"metric":"bad"');
  });

  it("refuses reads of a corrupt unsealed block, and seals the other series around it", async () => {
    const lines: string[] = [];
    const log = createLogger("error", "metrics-store", (l) => lines.push(l), "json");
    const s = new PostgresMetricsStore({ sql: db.sql, log, maintenanceIntervalMs: 3_600_000 });
    await s.open();
    cleanups.push(() => s.close());
    await s.write("t", [
      { type: "gauge", id: "bad", points: [{ timestamp: NOW, value: 1 }] },
      { type: "gauge", id: "good", points: [{ timestamp: NOW, value: 3 }] },
    ]);
    await db.sql.unsafe(
      "UPDATE metric_blocks SET body = set_byte(body, length(body) - 3, get_byte(body, length(body) - 3) # 255) WHERE sid = (SELECT sid FROM metric_series WHERE metric = 'bad')",
    );
    await expect(s.readRaw("t", "gauge", "bad", all)).rejects.toThrow(/gauge metric 'bad' is corrupt \(block \d+/);
    expect(await s.seal(true)).toBe(1);
    expect(await s.stats()).toEqual({ points: 1, blocks: 1, chunks: 1 });
    expect((await s.readRaw("t", "gauge", "good", all)).values).toEqual([3]);
    expect(lines.filter((l) => l.includes("corrupt block")).length).toBe(1);
  });

  it("refuses writes as 'unavailable' while the server cannot be reached, and takes them again when it is back", async () => {
    const proxy = await new PostgresProxy().start();
    const sql = new SQL(db.urlVia(proxy.port), { max: 2, connectionTimeout: 2 });
    const health = new StorageHealth({ log: createLogger("silent"), probeIntervalMs: 100 });
    const s = new PostgresMetricsStore({ sql, health, maintenanceIntervalMs: 3_600_000 });
    await s.open();
    cleanups.push(
      () => proxy.close(),
      () => sql.close({ timeout: 1 }),
      async () => health.close(),
      () => s.close(),
    );
    await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW, value: 1 }] }]);
    await proxy.cut();
    const failure = await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW + 1, value: 2 }] }]).then(
      () => "stored",
      (e) => storageFailure(e) ?? String(e),
    );
    expect(failure).toBe("unavailable");
    await expect(s.readRaw("t", "gauge", "g", all)).rejects.toSatisfy((e) => storageFailure(e) === "unavailable");
    await proxy.restore();
    await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW + 1, value: 2 }] }]);
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([1, 2]);
  });

  it("keeps the blocks when a seal fails, and seals them later: no acknowledged point is lost or doubled", async () => {
    const s = await collector();
    await s.write("t", [{ type: "gauge", id: "g", points: [1, 2, 3].map((i) => ({ timestamp: NOW + i, value: i })) }]);
    const restore = await failPostgresStatements(db.sql, "metric_chunks");
    await expect(s.seal(true)).rejects.toThrow(/injected failure/);
    expect(await s.stats()).toEqual({ points: 3, blocks: 1, chunks: 0 });
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([1, 2, 3]);
    await restore();
    expect(await s.seal(true)).toBe(1);
    expect(await s.stats()).toEqual({ points: 0, blocks: 0, chunks: 1 });
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([1, 2, 3]);
  });

  it("creates no tenant or series when the write's transaction fails", async () => {
    const s = await collector();
    const restore = await failPostgresStatements(db.sql, "metric_blocks");
    await expect(s.write("new-tenant", [{ type: "gauge", id: "g", points: [{ timestamp: NOW, value: 1 }] }])).rejects.toThrow(/injected failure/);
    await restore();
    expect(await s.listTenants()).toEqual([]);
    expect(await s.getMetric("new-tenant", "gauge", "g")).toBeUndefined();
  });

  it("answers a write 507 over HTTP when the server's disk is full, keeps serving reads, and takes writes once space returns", async () => {
    const col = await startTestCollector({ "database-url": db.url });
    cleanups.push(() => col.close());
    const write = (v: number) => col.req("/svc/metrics/gauges/raw", { method: "POST", json: [{ id: "g", data: [{ timestamp: NOW + v, value: v }] }] });
    expect((await write(1)).status).toBe(200);
    await db.sql.unsafe(`CREATE FUNCTION test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`);
    await db.sql.unsafe("CREATE TRIGGER test_disk_full BEFORE INSERT ON metric_blocks FOR EACH ROW EXECUTE FUNCTION test_disk_full()");
    const full = await write(2);
    expect(full.status).toBe(507);
    expect((await body(full)).errorMsg).toBeTruthy();
    const read = await col.req("/svc/metrics/gauges/g/raw?order=asc");
    expect(read.status).toBe(200);
    expect(await body(read)).toEqual([{ timestamp: NOW + 1, value: 1 }]);
    await db.sql.unsafe("DROP TRIGGER test_disk_full ON metric_blocks");
    await db.sql.unsafe("DROP FUNCTION test_disk_full()");
    expect((await write(2)).status).toBe(200);
    expect((await body(await col.req("/svc/metrics/gauges/g/raw?order=asc"))).map((p: { value: number }) => p.value)).toEqual([1, 2]);
  });
});
