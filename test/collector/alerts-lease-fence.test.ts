import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SQL } from "bun";
import { describe, expect, it } from "vitest";
import { type Alerting, createAlerting } from "../../collector/alerts/start.ts";
import { PointsBus } from "../../collector/events/points-bus.ts";
import { PostgresAlertsStore } from "../../collector/store/alerts/postgres.ts";
import { fullTriggerSchema } from "../../src/alerts/schemas.ts";
import { createLogger } from "../../src/log/logger.ts";
import { openPostgres } from "../../src/postgres/connect.ts";
import { LeaseKeeper } from "../../src/postgres/leases.ts";
import { waitFor } from "../helpers/ports.ts";
import { fileTestDatabase } from "../helpers/postgres.ts";

/**
 * The alerting of two collectors over one PostgreSQL database, in one process: each with its own
 * pool, lease keeper, points bus and engine, as collector/server.ts wires them. One partition,
 * so that whoever holds its lease evaluates the tenant's triggers; renewals far apart, so that a
 * holder does not notice a takeover by itself during a test (as one whose renewal came late).
 */
const TENANT = "t1";
const cleanups: (() => Promise<unknown> | unknown)[] = [];
const db = fileTestDatabase({
  truncate: ["triggers", "alerts", "events", "action_history", "outpost_leases", "outpost_collectors", "outpost_engine_inbox", "outpost_definition_changes"],
  async cleanup() {
    for (const c of cleanups.splice(0).reverse()) await c();
  },
});

interface Node {
  keeper: LeaseKeeper;
  alerting: Alerting;
  bus: PointsBus;
  logs: string[];
}

async function collector(owner: string): Promise<Node> {
  const sql: SQL = openPostgres(db.url, { max: 4 });
  cleanups.push(() => sql.close({ timeout: 1 }));
  const dataDir = mkdtempSync(join(tmpdir(), "outpost-fence-"));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const keeper = new LeaseKeeper(sql, { owner, partitions: 1, ttlMs: 60_000, renewMs: 30_000 });
  await keeper.start();
  cleanups.push(() => keeper.stop());
  const logs: string[] = [];
  const log = createLogger("info", owner, (line) => logs.push(line));
  const bus = new PointsBus();
  const store = new PostgresAlertsStore({ sql, log, fence: (tx, lease) => keeper.fenceGeneration(tx, lease) });
  const alerting = createAlerting({ dataDir, bus, log, store, cluster: { sql, keeper } });
  await alerting.open();
  cleanups.push(() => alerting.close());
  return { keeper, alerting, bus, logs };
}

/** autoDisable: one alert, then the trigger is disabled. */
async function createHotTrigger(node: Node): Promise<void> {
  await node.alerting.service.triggers.createFull(
    TENANT,
    fullTriggerSchema.parse({
      trigger: { id: "hot", name: "hot", enabled: true, autoDisable: true },
      conditions: [{ type: "THRESHOLD", dataId: "temp", operator: "GT", threshold: 10 }],
    }),
  );
}

let clock = Date.now() - 3_600_000;
/** A point above the threshold committed by this collector (what its metrics store publishes). */
function storeHotPoint(node: Node): void {
  clock += 5000;
  node.bus.publish({ tenant: TENANT, origin: "http", writes: [{ type: "gauge", id: "temp", points: [{ timestamp: clock, value: 20 }] }] });
}

/** The holder's lease lapses (its renewal late) and `next` takes it over, with the next generation. */
async function takeOver(next: Node): Promise<void> {
  await db.sql.unsafe("UPDATE outpost_leases SET expires_at = clock_timestamp() - interval '1 second'");
  await next.keeper.tick();
  expect(next.keeper.owns(TENANT), "the next holder took the tenant").toBeDefined();
}

async function storedAlerts(): Promise<number> {
  const [{ n }] = await db.sql.unsafe("SELECT count(*)::int AS n FROM alerts WHERE tenant = $1 AND trigger_id = 'hot'", [TENANT]);
  return Number(n);
}

async function storedEnabled(): Promise<boolean> {
  const [row] = await db.sql.unsafe("SELECT enabled, body FROM triggers WHERE tenant = $1 AND id = 'hot'", [TENANT]);
  const body = JSON.parse(row.body) as { trigger: { enabled: boolean } };
  expect(Number(row.enabled) === 1, "the column and the stored body agree").toBe(body.trigger.enabled);
  return body.trigger.enabled;
}

/**
 * Waits until what was relayed is evaluated and what it fired stored: the relay's insert is not
 * awaited by the bus, so first a while longer than two of the holder's rounds (200 ms each).
 */
async function relayedDone(node: Node): Promise<void> {
  await Bun.sleep(500);
  await waitFor("the inbox emptied", async () => {
    const [{ n }] = await db.sql.unsafe("SELECT count(*)::int AS n FROM outpost_engine_inbox");
    return Number(n) === 0 ? true : undefined;
  }, 10_000);
  await node.alerting.service.idle();
}

describe("what a lease holder's engine fires is fenced by the lease", () => {
  it("a holder whose lease was taken over without its noticing stores nothing; the next holder fires once and the trigger is disabled once", async () => {
    const a = await collector("a");
    await createHotTrigger(a);
    const b = await collector("b");
    expect(b.keeper.owns(TENANT), "a holds the only partition").toBeUndefined();
    const stale = a.keeper.owns(TENANT)!;
    await takeOver(b);
    expect(a.keeper.owns(TENANT), "a has not noticed yet").toEqual(stale);
    expect(b.keeper.owns(TENANT)!.generation).toBeGreaterThan(stale.generation);

    // a evaluates its own point by what its keeper last knew: the trigger fires in its engine...
    storeHotPoint(a);
    await a.alerting.service.idle();
    // ...but nothing of it is stored, and a stops evaluating the tenant.
    expect(await storedAlerts()).toBe(0);
    expect(await storedEnabled()).toBe(true);
    expect(a.keeper.owns(TENANT), "a learned that it lost the lease").toBeUndefined();
    expect(a.logs.some((l) => l.includes("another collector took over this lease"))).toBe(true);

    // The next holder fires, once.
    storeHotPoint(b);
    await waitFor("the next holder's alert", async () => ((await storedAlerts()) > 0 ? true : undefined), 10_000);
    await relayedDone(b);
    // a's later points go to the holder, whose trigger is disabled now.
    storeHotPoint(a);
    await relayedDone(b);
    expect(await storedAlerts()).toBe(1);
    expect(await storedEnabled()).toBe(false);
  });

  it("a new holder evaluates its own points only with the triggers as stored: the previous holder's autoDisable holds", async () => {
    const a = await collector("a");
    await createHotTrigger(a);
    const b = await collector("b"); // loads the trigger enabled
    // b does not hear of a's change through the definition sync (its poll late, as under load).
    let unlock = () => {};
    const unlocked = new Promise<void>((resolve) => {
      unlock = resolve;
    });
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const lock = db.sql.begin(async (tx) => {
      await tx.unsafe("LOCK TABLE outpost_definition_changes IN ACCESS EXCLUSIVE MODE");
      locked();
      await unlocked;
    });
    try {
      await isLocked;
      storeHotPoint(a);
      await a.alerting.service.idle();
      expect(await storedAlerts(), "the holder fired").toBe(1);
      expect(await storedEnabled(), "and disabled the trigger").toBe(false);

      await takeOver(b);
      // b's engine still has the trigger enabled: this point must wait for the triggers as stored.
      storeHotPoint(b);
      await relayedDone(b);
      expect(await storedAlerts()).toBe(1);
      expect(await storedEnabled()).toBe(false);
    } finally {
      unlock();
      await lock;
    }
  });
});
