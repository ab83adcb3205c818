import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Lease, partitionOf } from "../../src/partitions.ts";
import { LeaseKeeper, StaleLeaseError } from "../../src/postgres/leases.ts";
import { openPostgres } from "../../src/postgres/connect.ts";
import { createTestDatabase, PostgresProxy, type TestDatabase } from "../helpers/postgres.ts";

let db: TestDatabase;
const pools: SQL[] = [];
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  for (const p of pools) await p.close({ timeout: 1 });
  await db.drop();
});

/** A pool of its own, as a separate collector process would have. */
function pool(): SQL {
  const p = new SQL(db.url, { max: 2 });
  pools.push(p);
  return p;
}

async function reset(): Promise<void> {
  await db.sql.unsafe("DROP TABLE IF EXISTS outpost_leases, outpost_collectors");
  await db.sql.unsafe("DELETE FROM outpost_schema WHERE name = 'leases'").catch(() => undefined);
}

const fast = { partitions: 8, ttlMs: 1000, renewMs: 250 };

async function until(cond: () => boolean, ms: number): Promise<number> {
  const t0 = performance.now();
  while (!cond()) {
    if (performance.now() - t0 > ms) throw new Error(`condition not met within ${ms} ms`);
    await Bun.sleep(20);
  }
  return performance.now() - t0;
}

const parts = (ls: readonly Lease[]) => ls.map((l) => l.partition);

describe("partitionOf", () => {
  it("is stable and spreads keys over the partitions", () => {
    expect(partitionOf("acme/host-1", 16)).toBe(partitionOf("acme/host-1", 16));
    const counts = new Array(16).fill(0);
    for (let i = 0; i < 1600; i++) counts[partitionOf(`tenant-${i}`, 16)]++;
    expect(Math.min(...counts)).toBeGreaterThan(50);
    expect(Math.max(...counts)).toBeLessThan(160);
  });
});

describe("leases in PostgreSQL", () => {
  it("two collectors split the partitions: every key has exactly one owner", async () => {
    await reset();
    const a = new LeaseKeeper(pool(), { owner: "a", ...fast });
    const b = new LeaseKeeper(pool(), { owner: "b", ...fast });
    await a.start();
    expect(parts(a.leases())).toEqual([0, 1, 2, 3, 4, 5, 6, 7]); // alone: everything
    await b.start();
    // a gives back its excess at its next round, b takes it at the one after.
    await until(() => a.leases().length === 4 && b.leases().length === 4, 3000);
    const union = [...parts(a.leases()), ...parts(b.leases())].sort();
    expect(union).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    for (let i = 0; i < 200; i++) {
      const key = `tenant-${i}`;
      expect([a.owns(key), b.owns(key)].filter(Boolean)).toHaveLength(1);
    }
    await a.stop();
    await b.stop();
  });

  it("a collector that stops renewing is taken over after the ttl, with a new generation; its fenced work is refused", async () => {
    await reset();
    const aSql = pool();
    const a = new LeaseKeeper(aSql, { owner: "a", ...fast });
    const b = new LeaseKeeper(pool(), { owner: "b", ...fast });
    await a.start();
    await b.start();
    await until(() => a.leases().length === 4 && b.leases().length === 4, 3000);
    const aLeases = a.leases();
    const first = aLeases[0];
    if (!first) throw new Error("a holds no lease");
    // a's lease fences its work while it holds it.
    await aSql.begin((tx) => a.fence(tx, first));
    // a "dies": no more renewals, nothing released.
    await a.stop({ release: false });
    const t0 = performance.now();
    const took = await until(() => b.leases().length === 8, 5000);
    expect(took).toBeLessThan(fast.ttlMs + 2 * fast.renewMs + 500);
    expect(performance.now() - t0).toBeGreaterThan(fast.ttlMs / 2); // not before a's lease could lapse
    for (const l of aLeases) {
      const now = b.leases().find((x) => x.partition === l.partition);
      expect(now?.generation).toBe(l.generation + 1);
    }
    // a's work with its old lease, arriving late: refused.
    const late = aSql.begin(async (tx) => {
      await a.fence(tx, first);
      await tx.unsafe("SELECT 1");
    });
    await expect(late).rejects.toBeInstanceOf(StaleLeaseError);
    await b.stop();
  });

  it("fenceGeneration passes a lapsed lease nobody took, and refuses it once taken; lost() forgets it at once", async () => {
    await reset();
    const aSql = pool();
    const slow = { partitions: 2, ttlMs: 60_000, renewMs: 30_000 };
    const a = new LeaseKeeper(aSql, { owner: "a", ...slow });
    await a.start();
    const lease = a.leases()[0]!;
    await db.sql.unsafe("UPDATE outpost_leases SET expires_at = clock_timestamp() - interval '1 second'");
    await expect(aSql.begin((tx) => a.fence(tx, lease))).rejects.toBeInstanceOf(StaleLeaseError);
    // Nobody else can have worked under it: its work still counts.
    await aSql.begin((tx) => a.fenceGeneration(tx, lease));
    const b = new LeaseKeeper(pool(), { owner: "b", ...slow });
    await b.start();
    expect(parts(b.leases())).toContain(lease.partition);
    await expect(aSql.begin((tx) => a.fenceGeneration(tx, lease))).rejects.toBeInstanceOf(StaleLeaseError);
    // a's next round is 30 s away; told by the refused fence, it stops counting the lease now.
    expect(parts(a.leases())).toContain(lease.partition);
    a.lost(lease);
    expect(parts(a.leases())).not.toContain(lease.partition);
    await b.stop();
    await a.stop();
  });

  it("a clean stop hands the leases back at once", async () => {
    await reset();
    const a = new LeaseKeeper(pool(), { owner: "a", ...fast, ttlMs: 60_000, renewMs: 250 });
    const b = new LeaseKeeper(pool(), { owner: "b", ...fast, ttlMs: 60_000, renewMs: 250 });
    await a.start();
    await b.start();
    await until(() => a.leases().length === 4 && b.leases().length === 4, 3000);
    await a.stop();
    // The ttl is a minute: only the release explains a takeover within a second.
    await until(() => b.leases().length === 8, 1000);
    await b.stop();
  });

  it("a takeover waits for the old owner's fenced transaction to end", async () => {
    await reset();
    const aSql = pool();
    const a = new LeaseKeeper(aSql, { owner: "a", ...fast });
    await a.start();
    const lease = a.leases()[0];
    if (!lease) throw new Error("a holds no lease");
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const work = aSql.begin(async (tx) => {
      await a.fence(tx, lease);
      await held;
    });
    await Bun.sleep(50);
    await a.stop({ release: false });
    const b = new LeaseKeeper(pool(), { owner: "b", ...fast });
    await b.start();
    await Bun.sleep(fast.ttlMs + 3 * fast.renewMs);
    // Every lapsed partition is b's, except the one a's transaction still works on.
    expect(parts(b.leases())).not.toContain(lease.partition);
    expect(b.leases()).toHaveLength(7);
    release();
    await work;
    await until(() => b.leases().length === 8, 2000);
    await b.stop();
  });

  it("with the default settings, a dead owner's partitions are taken over within 15 s", async () => {
    await reset();
    const a = new LeaseKeeper(pool(), { owner: "a" });
    const b = new LeaseKeeper(pool(), { owner: "b" });
    await a.start();
    await b.start();
    await until(() => a.leases().length === 8 && b.leases().length === 8, 8000);
    await a.stop({ release: false });
    const took = await until(() => b.leases().length === 16, 15_000);
    expect(took).toBeLessThan(15_000);
    console.log(`takeover after ${Math.round(took)} ms`);
    await b.stop();
  }, 40_000);

  it("refuses a collector told another number of partitions", async () => {
    await reset();
    const a = new LeaseKeeper(pool(), { owner: "a", ...fast });
    await a.start();
    await expect(new LeaseKeeper(pool(), { owner: "b", ...fast, partitions: 4 }).start()).rejects.toThrow(/8 partitions.*told 4/);
    await a.stop();
  });

  it("a database out of reach: the leases lapse locally, and a stop still ends (the release is given up)", async () => {
    await reset();
    const proxy = await new PostgresProxy().start();
    const sql = openPostgres(db.urlVia(proxy.port), { max: 2, connectionTimeout: 1 });
    pools.push(sql);
    const errors: unknown[] = [];
    const a = new LeaseKeeper(sql, { owner: "a", ...fast, onError: (e) => errors.push(e) });
    await a.start();
    expect(a.leases()).toHaveLength(8);
    await proxy.cut();
    // No renewal gets through: after the ttl this collector no longer counts on its leases.
    await until(() => a.leases().length === 0 && a.owns("tenant-1") === undefined, fast.ttlMs + 2000);
    expect(errors.length).toBeGreaterThan(0);
    await a.stop();
    await proxy.close();
  });
});
