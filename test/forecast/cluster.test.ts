import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ForecastingService } from "../../collector/forecast/service.ts";
import { PostgresForecastStore } from "../../collector/store/forecast/postgres.ts";
import type { ForecastStore } from "../../collector/store/forecast/types.ts";
import { createMetricsStore } from "../../collector/store/metrics/open.ts";
import { createLogger } from "../../src/log/logger.ts";
import { type Lease, partitionOf } from "../../src/partitions.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { waitFor } from "../helpers/ports.ts";
import { createTestDatabase, migrateAll, type TestDatabase } from "../helpers/postgres.ts";
import { linearTrend } from "../helpers/series.ts";

/**
 * Forecasting with several collectors on one database: only the holder of the tenant's lease
 * learns, from every point stored (by whichever collector), and the others show the model it
 * saved; a takeover goes on from the former holder's last save.
 */
const MINUTE = 60_000;
const NOW = Math.floor(Date.now() / MINUTE) * MINUTE;
const points = (values: number[], from: number) => values.map((value, i) => ({ timestamp: NOW - 200 * MINUTE + (from + i) * MINUTE, value }));
const log = createLogger("warn");

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await migrateAll(db.sql);
});
afterAll(async () => {
  await db?.drop();
});

/** Whether this collector holds the lease: the input the engine and forecasting follow. */
class Holder {
  constructor(public holds: boolean) {}
  owns(): Lease | undefined {
    return this.holds ? { partition: 0, generation: 1 } : undefined;
  }
}

describe("forecasting services sharing a database", () => {
  it("learns on the holder only, from the points any collector stored; the other shows its model; a takeover goes on from it", async () => {
    const metrics = createMetricsStore({ dataDir: "/nonexistent", synchronous: "NORMAL", defaultRetentionDays: 7, log, sql: db.sql });
    await metrics.open();
    const store = new PostgresForecastStore({ sql: db.sql, log });
    const [ha, hb] = [new Holder(true), new Holder(false)];
    const a = new ForecastingService({ store, points: metrics, log, ownership: ha });
    const b = new ForecastingService({ store, points: metrics, log, ownership: hb });
    try {
      await a.open();
      await b.open();
      await b.subscribe("svc", { metricId: "load", collectionInterval: 60 });
      // b does not learn its subscription's history nor the points it stores.
      expect(b.get("svc", "load").forecaster.learned).toBe(0);
      const y = linearTrend(60, 7);
      const write = async (svc: ForecastingService, from: number, to: number) => {
        const w = [{ type: "gauge" as const, id: "load", points: points(y.slice(from, to), from) }];
        await metrics.write("svc", w);
        svc.onPoints({ tenant: "svc", origin: "http", writes: w });
      };
      await write(b, 0, 20);
      expect(b.get("svc", "load").forecaster.learned).toBe(0);
      await b.syncWithStore();
      expect(b.get("svc", "load").forecaster.learned).toBe(0);
      // The holder takes the subscription made through b and learns what b stored.
      await a.syncWithStore();
      expect(a.get("svc", "load").forecaster.learned).toBe(20);
      // Another collector stores older points than the holder's own next ones, before a round:
      // the holder learns in rounds, in the order stored, so none is skipped as too old.
      await write(b, 20, 30);
      await write(a, 30, 40);
      expect(a.get("svc", "load").forecaster.learned).toBe(20);
      await a.syncWithStore();
      await a.flush();
      expect(a.get("svc", "load").forecaster.learned).toBe(40);
      await b.syncWithStore();
      expect(b.get("svc", "load").forecaster.learned).toBe(40);
      expect(b.forecast("svc", "load", 3)).toEqual(a.forecast("svc", "load", 3));
      // Nothing saved since: the round reads revisions only, and keeps the model it has.
      const kept = b.get("svc", "load");
      await b.syncWithStore();
      expect(b.get("svc", "load")).toBe(kept);

      // Takeover: b holds the tenant now and goes on from a's last save.
      ha.holds = false;
      hb.holds = true;
      await write(a, 40, 50);
      await a.syncWithStore(); // a no longer learns
      expect(a.get("svc", "load").forecaster.learned).toBe(40);
      await write(b, 50, 60);
      await b.syncWithStore();
      await b.flush();
      expect(b.get("svc", "load").forecaster.learned).toBe(60);
      await a.syncWithStore();
      expect(a.forecast("svc", "load", 3)).toEqual(b.forecast("svc", "load", 3));
      expect(a.forecast("svc", "load", 1)[0]!.timestamp).toBe(NOW - 200 * MINUTE + 60 * MINUTE);

      // Changes through the collector that does not hold the tenant reach the holder.
      await a.update("svc", "load", { collectionInterval: 120 });
      await b.syncWithStore();
      expect(b.get("svc", "load").collectionInterval).toBe(120);
      await a.unsubscribe("svc", "load");
      await b.syncWithStore();
      expect(b.list("svc")).toEqual([]);
    } finally {
      await a.flush();
      await b.flush();
      await store.close();
      await metrics.close();
    }
  });
});

describe("a store round beside a subscription", () => {
  it("keeps a subscription whose insert completed while the round's listing was being read", async () => {
    const metrics = createMetricsStore({ dataDir: "/nonexistent", synchronous: "NORMAL", defaultRetentionDays: 7, log, sql: db.sql });
    await metrics.open();
    const pg = new PostgresForecastStore({ sql: db.sql, log });
    // The listing is read from the database first, then held back until the subscription is in.
    let release = () => {};
    let gate = Promise.resolve();
    let listed = () => {};
    let read = Promise.resolve();
    const hold = () => {
      gate = new Promise<void>((r) => (release = r));
      read = new Promise<void>((r) => (listed = r));
    };
    const store: ForecastStore = {
      all: () => pg.all(),
      insert: (r) => pg.insert(r),
      save: (r) => pg.save(r),
      get: (t, m) => pg.get(t, m),
      delete: (t, m) => pg.delete(t, m),
      close: () => pg.close(),
      revisions: async () => {
        const rows = await pg.revisions();
        listed();
        await gate;
        return rows;
      },
    };
    for (const holds of [false, true]) {
      const svc = new ForecastingService({ store, points: metrics, log, ownership: new Holder(holds) });
      await svc.open();
      const tenant = `race-${holds}`;
      hold();
      const round = svc.syncWithStore();
      await read;
      await svc.subscribe(tenant, { metricId: "m", collectionInterval: 60 });
      release();
      await round;
      // Not deleted as missing from a listing read before it existed.
      expect(svc.get(tenant, "m").metricId).toBe("m");
      expect((await store.revisions!()).some((v) => v.tenant === tenant)).toBe(true);
      await svc.syncWithStore();
      expect(svc.get(tenant, "m").metricId).toBe("m");
    }
    await metrics.close();
  });
});

describe("two collectors on one database", () => {
  let ca: TestCollector | undefined;
  let cb: TestCollector | undefined;
  it("the same forecast from both, learned by the tenant's holder; the other takes over when it stops", async () => {
    const fresh = await createTestDatabase();
    const closed = new Set<TestCollector>();
    try {
      ca = await startTestCollector({ "database-url": fresh.url, "node-name": "fa" });
      cb = await startTestCollector({ "database-url": fresh.url, "node-name": "fb" });
      const owners = async () => {
        const rows = (await fresh.sql.unsafe("SELECT partition, owner FROM outpost_leases WHERE expires_at > clock_timestamp()")) as { partition: number; owner: string }[];
        return new Map(rows.map((r) => [r.partition, r.owner.split(":")[0]]));
      };
      await waitFor("the partitions shared", async () => (new Set((await owners()).values()).size === 2 ? true : undefined), 15_000, 200);
      const tenant = "acme";
      const holderName = (await owners()).get(partitionOf(tenant, 16));
      const [holder, other] = holderName === "fa" ? [ca, cb] : [cb, ca];
      const dm = (c: TestCollector, path: string, init: { method?: string; json?: unknown } = {}) => c.req(`/svc/datamining${path}`, { ...init, tenant });
      const gauge = (c: TestCollector, from: number, to: number) =>
        c.req("/svc/metrics/gauges/load/raw", { method: "POST", json: points(y.slice(from, to), from), tenant });
      const y = linearTrend(60, 11);

      expect((await dm(other, "/metrics", { method: "POST", json: { metricId: "load", collectionInterval: 60 } })).status).toBe(201);
      for (let i = 0; i < 40; i += 10) expect((await gauge(i % 20 === 0 ? other : holder, i, i + 10)).status).toBe(200);
      const learned = (c: TestCollector) => async () => (await body(await dm(c, "/metrics/load"))).forecaster.learnedPoints;
      for (const c of [holder, other]) await waitFor("40 points learned", async () => ((await learned(c)()) === 40 ? true : undefined), 10_000, 100);
      const forecastAt = async (c: TestCollector) => body(await dm(c, "/metrics/load/forecaster/forecast?ahead=3"));
      expect(await forecastAt(other)).toEqual(await forecastAt(holder));

      // The holder stops (its leases handed over at once): the other learns on.
      await holder.close();
      closed.add(holder);
      for (let i = 40; i < 60; i += 10) expect((await gauge(other, i, i + 10)).status).toBe(200);
      await waitFor("60 points learned after the takeover", async () => ((await learned(other)()) === 60 ? true : undefined), 15_000, 200);
      expect((await forecastAt(other))[0].timestamp).toBe(NOW - 200 * MINUTE + 60 * MINUTE);
    } finally {
      for (const c of [ca, cb]) if (c && !closed.has(c)) await c.close();
      await fresh.drop();
    }
  });
});
