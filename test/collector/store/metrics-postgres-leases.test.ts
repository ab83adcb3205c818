import { SQL } from "bun";
import { describe, expect, it } from "vitest";
import { PostgresMetricsStore } from "../../../collector/store/metrics/postgres/store.ts";
import { DEFAULT_ROLLUP_TIERS, parseRollupTiers, type RollupTier } from "../../../src/metrics/rollup/tiers.ts";
import { partitionOf } from "../../../src/partitions.ts";
import { LeaseKeeper } from "../../../src/postgres/leases.ts";
import { metricsTestDatabase } from "../../helpers/postgres.ts";

/**
 * Sealing and retention of the PostgreSQL metrics store done once among collectors: each
 * collector (a lease keeper and a store on pools of their own) seals and expires only the
 * series of the tenants whose partitions it holds, and the survivor takes over the rest when
 * one stops renewing.
 */
const { db, cleanups } = metricsTestDatabase(["outpost_leases", "outpost_collectors"]);

const NOW = Date.now();
const DAY = 86_400_000;
// Long enough that a loaded machine's stalls do not make leases change hands mid-test.
const TTL = 5000;
const RENEW = 1000;
const tenants = Array.from({ length: 40 }, (_, i) => `tenant-${i}`);

/** A collector: its leases (16 partitions, a short ttl) and its metrics store, each on a pool of its own. */
async function collector(name: string, o: { now?: () => number; maintenanceIntervalMs?: number; rollupTiers?: RollupTier[] } = {}) {
  const lsql = new SQL(db.url, { max: 2 });
  const keeper = new LeaseKeeper(lsql, { owner: name, ttlMs: TTL, renewMs: RENEW });
  await keeper.start();
  const sql = new SQL(db.url, { max: 3 });
  const store = new PostgresMetricsStore({ sql, ownership: keeper, now: o.now, headMaxAgeMs: 0, maintenanceIntervalMs: o.maintenanceIntervalMs ?? 3_600_000, rollupTiers: o.rollupTiers });
  await store.open();
  let stopped = false;
  const stop = async (release: boolean) => {
    if (stopped) return;
    stopped = true;
    await store.close();
    await keeper.stop({ release });
    await sql.close({ timeout: 1 });
    await lsql.close({ timeout: 1 });
  };
  cleanups.push(() => stop(true));
  return { keeper, store, stop, parts: () => new Set(keeper.leases().map((l) => l.partition)) };
}

async function until(cond: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const t0 = performance.now();
  while (!(await cond())) {
    if (performance.now() - t0 > ms) throw new Error(`condition not met within ${ms} ms`);
    await Bun.sleep(50);
  }
  return performance.now() - t0;
}

/** Two collectors holding 8 partitions each. */
async function pair(o: { now?: () => number; maintenanceIntervalMs?: number; rollupTiers?: RollupTier[] } = {}) {
  const a = await collector("a", o);
  const b = await collector("b", o);
  await until(() => a.parts().size === 8 && b.parts().size === 8, 3 * TTL);
  return { a, b };
}

const writeAll = (s: PostgresMetricsStore, ts: number) =>
  Promise.all(tenants.map((t) => s.write(t, [{ type: "gauge", id: "g", points: [{ timestamp: ts, value: 1 }] }])));

/** Partitions of the series that still have unsealed blocks, and of those with chunks. */
async function where(): Promise<{ blocks: Set<number>; chunks: Set<number> }> {
  const b = (await db.sql.unsafe("SELECT DISTINCT s.tenant FROM metric_blocks JOIN metric_series s USING (sid)")) as { tenant: string }[];
  const c = (await db.sql.unsafe("SELECT DISTINCT s.tenant FROM metric_chunks JOIN metric_series s USING (sid)")) as { tenant: string }[];
  const p = (rows: { tenant: string }[]) => new Set(rows.map((r) => partitionOf(r.tenant, 16)));
  return { blocks: p(b), chunks: p(c) };
}

const inParts = (parts: Set<number>) => tenants.filter((t) => parts.has(partitionOf(t, 16)));

describe("PostgreSQL metrics store: sealing and retention by lease holders", () => {
  it("seals on each collector only the series of the partitions it holds", async () => {
    const { a, b } = await pair();
    const mine = inParts(a.parts());
    expect(mine.length).toBeGreaterThan(5);
    expect(mine.length).toBeLessThan(tenants.length - 5);
    await writeAll(a.store, NOW);
    expect(await a.store.seal(true)).toBe(mine.length);
    const after = await where();
    expect(after.chunks).toEqual(a.parts());
    expect(after.blocks).toEqual(b.parts());
    // Background rounds seal what is due (headMaxAgeMs 0: everything), again only their own.
    expect(await a.store.seal()).toBe(0);
    expect(await b.store.seal()).toBe(tenants.length - mine.length);
    expect(await a.store.stats()).toEqual({ points: 0, blocks: 0, chunks: tenants.length });
    for (const t of tenants) expect((await b.store.readRaw(t, "gauge", "g", { start: 0, end: NOW + 1, order: "asc" })).values).toEqual([1]);
  });

  it("rolls up on each collector only the chunks of the partitions it holds, each once", async () => {
    const { a, b } = await pair({ rollupTiers: parseRollupTiers(DEFAULT_ROLLUP_TIERS) });
    await writeAll(a.store, NOW);
    await a.store.seal(true);
    await b.store.seal(true);
    const queued = async () => {
      const rows = (await db.sql.unsafe("SELECT DISTINCT s.tenant FROM metric_rollup_queue q JOIN metric_series s USING (sid)")) as { tenant: string }[];
      return new Set(rows.map((r) => partitionOf(r.tenant, 16)));
    };
    // Queued for the partitions held; not necessarily all of them still: a background round,
    // started when the leases settled, may already have rolled some of its holder's (CI saw it
    // under load). That every series is rolled once, by its holder, is counted below.
    const held = new Set([...a.parts(), ...b.parts()]);
    expect([...(await queued())].every((p) => held.has(p))).toBe(true);
    // Such a round may hold some entries meanwhile: wait for it.
    const same = (x: Set<number>, y: Set<number>) => x.size === y.size && [...x].every((p) => y.has(p));
    await a.store.rollUp();
    await until(async () => same(await queued(), b.parts()), 5000);
    expect(a.store.rollups!.stats().chunksRolled).toBe(inParts(a.parts()).length);
    await b.store.rollUp();
    await until(async () => (await queued()).size === 0, 5000);
    expect(b.store.rollups!.stats().chunksRolled).toBe(tenants.length - inParts(a.parts()).length);
    // One block per series and tier.
    const [r] = (await db.sql.unsafe("SELECT count(*)::int AS n, count(DISTINCT sid)::int AS s FROM metric_rollups")) as { n: number; s: number }[];
    expect(r).toEqual({ n: 3 * tenants.length, s: tenants.length });
  });

  it("deletes each expired chunk and block once, by the holder of its partition", async () => {
    let now = NOW;
    const { a, b } = await pair({ now: () => now });
    await writeAll(a.store, NOW - 1);
    await a.store.seal(true);
    await b.store.seal(true);
    await writeAll(b.store, NOW);
    expect(await a.store.stats()).toEqual({ points: tenants.length, blocks: tenants.length, chunks: tenants.length });
    now = NOW + 8 * DAY; // past the default retention of 7 days
    const mine = inParts(a.parts()).length;
    // Returns the series that lost chunks: each holder its own, once.
    expect(await a.store.enforceRetention()).toBe(mine);
    expect(await a.store.enforceRetention()).toBe(0);
    const half = await where();
    expect(half.chunks).toEqual(b.parts());
    expect(half.blocks).toEqual(b.parts());
    expect(await b.store.enforceRetention()).toBe(tenants.length - mine);
    expect(await b.store.enforceRetention()).toBe(0);
    expect(await a.store.stats()).toEqual({ points: 0, blocks: 0, chunks: 0 });
    // Bounds of the series are those of what is left: nothing.
    expect((await b.store.getMetric(tenants[0]!, "gauge", "g"))?.maxTimestamp).toBeUndefined();
  });

  it("has the survivor seal the series of a collector that stopped renewing as soon as it takes their leases", async () => {
    // Background rounds every minute: only a change of the partitions held makes one sooner.
    const { a, b } = await pair({ maintenanceIntervalMs: 60_000 });
    const lost = a.parts();
    // a dies: no release, its leases lapse after the ttl. Then points of every tenant arrive.
    const died = performance.now();
    await a.stop(false);
    await writeAll(b.store, NOW);
    // Until they lapse, b seals its own series only.
    expect(await b.store.seal()).toBe(tenants.length - inParts(lost).length);
    expect((await where()).blocks).toEqual(lost);
    await until(async () => (await where()).blocks.size === 0, 4 * TTL);
    const tookMs = performance.now() - died;
    // Not before the lease lapsed; within the ttl, a renewal of b and a seal round (plus scheduling).
    expect(tookMs).toBeGreaterThan(TTL * 0.7);
    expect(tookMs).toBeLessThan(TTL + RENEW + 3000);
    expect(b.parts().size).toBe(16);
    expect(await b.store.stats()).toEqual({ points: 0, blocks: 0, chunks: tenants.length });
  });

  it("refuses leases divided into another number of partitions than the store's", () => {
    const keeper = { partitions: 8, leases: () => [] };
    expect(() => new PostgresMetricsStore({ sql: db.sql, ownership: keeper })).toThrow(/16 partitions, the leases into 8/);
  });
});
