import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Agent, startAgent } from "../../agent/agent.ts";
import { SHARE_GROUP, sharedFilters } from "../../collector/ingest/external-broker.ts";
import { openWatchStream } from "../alerts-api/watch-reader.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type PrivateMosquitto, startMosquitto } from "../helpers/mosquitto.ts";
import { waitFor } from "../helpers/ports.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres.ts";

/**
 * Two collectors on one PostgreSQL database and one Mosquitto: they consume the agents' topics
 * through an MQTT 5 shared subscription, so each batch is stored (and acknowledged) by one of
 * them; the points are in PostgreSQL, so each collector reads every one of them, once.
 */
const cleanup: (() => Promise<void> | void)[] = [];
let db: TestDatabase;
let mosquitto: PrivateMosquitto;
beforeAll(async () => {
  db = await createTestDatabase();
  mosquitto = await startMosquitto();
});
// Each test's collectors leave the shared group before the next test.
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});
afterAll(async () => {
  await mosquitto.stop();
  await db.drop();
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "outpost-shared-"));
  cleanup.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

async function collector(): Promise<TestCollector> {
  const col = await startTestCollector({ broker: mosquitto.url, "database-url": db.url });
  cleanup.push(() => col.close());
  return col;
}

async function agent(feed: string): Promise<Agent> {
  const a = await startAgent({
    broker: mosquitto.url,
    tenant: "t1",
    feed,
    "data-dir": tempDir(),
    listen: "127.0.0.1:0",
    "log-level": "warn",
    interval: 60_000,
    "reconnect-max": 1000,
    "host-metrics": false,
  });
  cleanup.push(() => a.stop());
  return a;
}

async function timestamps(col: TestCollector, id: string): Promise<number[]> {
  const res = await col.req(`/svc/metrics/gauges/${encodeURIComponent(id)}/raw?start=0&end=${Date.now() + 3_600_000}&order=ASC&limit=100000`);
  if (res.status === 204) return [];
  expect(res.status).toBe(200);
  return ((await res.json()) as { timestamp: number }[]).map((p) => p.timestamp);
}

/** One push to the agent, then a pause, so that pushes leave as separate MQTT messages. */
async function pushBatch(ag: Agent, id: string, from: number, n: number, step = 1, value?: number): Promise<void> {
  const res = await fetch(`${ag.url}/svc/metrics/gauges/raw`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify([{ id, dataPoints: Array.from({ length: n }, (_, j) => ({ timestamp: from + j * step, value: value ?? j })) }]),
  });
  expect(res.status).toBe(200);
  await Bun.sleep(30);
}

/** Points this collector stored from agents' batches (its own count, not the database's). */
async function storedHere(col: TestCollector): Promise<number> {
  const text = await (await col.req("/metrics", { tenant: null })).text();
  return Number(text.split("\n").find((l) => l.startsWith("outpost_collector_points_stored_total "))?.split(" ")[1] ?? Number.NaN);
}

async function expectEveryPointOnce(cols: readonly TestCollector[], id: string, expected: readonly number[]): Promise<void> {
  for (const c of cols) {
    const got = await waitFor(`${expected.length} points of ${id}`, async () => {
      const ts = await timestamps(c, id);
      return ts.length >= expected.length ? ts : undefined;
    }, 30_000);
    expect(got).toEqual(expected);
  }
}

describe("shared ingest", () => {
  it("subscribes under $share/GROUP/ only when shared", () => {
    expect(sharedFilters(["svc/+/+/data"], undefined)).toEqual(["svc/+/+/data"]);
    expect(sharedFilters(["svc/+/+/data", "svc/+/+/status"], SHARE_GROUP)).toEqual([`$share/${SHARE_GROUP}/svc/+/+/data`, `$share/${SHARE_GROUP}/svc/+/+/status`]);
  });

  it("a collector that stops midway leaves the rest to the other: still every point exactly once", async () => {
    const a = await collector();
    const b = await collector();
    const ag = await agent("edge-2");
    const BATCHES = 30;
    const PER = 100;
    const from = Date.now() - 3_600_000;
    let byA = 0;
    for (let i = 0; i < BATCHES; i++) {
      if (i === 10) {
        byA = await storedHere(a);
        await a.stop();
      }
      await pushBatch(ag, "n", from + i * PER, PER);
    }
    await expectEveryPointOnce([b], "n", Array.from({ length: BATCHES * PER }, (_, k) => from + k));
    expect(byA).toBeGreaterThan(0);
    expect(await storedHere(b)).toBeGreaterThan(0);
  });

  it("two collectors on one database share an agent's batches: every point stored by exactly one of them", async () => {
    const a = await collector();
    const b = await collector();
    const ag = await agent("edge-1");
    const BATCHES = 30;
    const PER = 200;
    const from = Date.now() - 3_600_000;
    // One push per batch, a pause between, so that they are separate MQTT messages the broker
    // hands out in turn.
    for (let i = 0; i < BATCHES; i++) await pushBatch(ag, "m", from + i * PER, PER);
    const total = BATCHES * PER;
    await expectEveryPointOnce([a, b], "m", Array.from({ length: total }, (_, k) => from + k));
    // Each stored a share, and together exactly the points sent: none stored by both.
    const [byA, byB] = [await storedHere(a), await storedHere(b)];
    expect(byA).toBeGreaterThan(0);
    expect(byB).toBeGreaterThan(0);
    expect(byA + byB).toBe(total);
    console.log(`points stored: ${byA} by one collector, ${byB} by the other`);
  });
});

describe("trigger evaluation done once", () => {
  it("two collectors share an agent's data, yet an autoDisable trigger fires exactly once: the tenant's owner evaluates what the other stored", async () => {
    const a = await collector();
    const trigger = {
      trigger: { id: "hot", name: "hot", enabled: true, autoDisable: true },
      conditions: [{ type: "THRESHOLD", dataId: "temp", operator: "GT", threshold: 10 }],
    };
    expect((await a.req("/svc/alerts/triggers/trigger", { method: "POST", json: trigger })).status).toBe(200);
    // b starts once the trigger exists (a trigger created later reaches another collector's engine only at its restart).
    const b = await collector();
    const ag = await agent("edge-3");
    const from = Date.now() - 3_600_000;
    const N = 20;
    // Points 5 s apart (the engine's minimum reporting interval), every one above the threshold.
    for (let i = 0; i < N; i++) await pushBatch(ag, "temp", from + i * 5000, 1, 5000, 20);
    await expectEveryPointOnce([a, b], "temp", Array.from({ length: N }, (_, k) => from + k * 5000));
    // Both collectors stored (and would each have fired on) some of the data.
    expect(await storedHere(a)).toBeGreaterThan(0);
    expect(await storedHere(b)).toBeGreaterThan(0);
    const alerts = await waitFor("the alert", async () => {
      const res = await a.req("/svc/alerts?triggerIds=hot");
      const list = (await res.json()) as { id: string }[];
      return list.length > 0 ? list : undefined;
    });
    await Bun.sleep(1500); // relayed data left to evaluate would fire a second one by now
    const again = (await (await b.req("/svc/alerts?triggerIds=hot")).json()) as unknown[];
    expect(alerts).toHaveLength(1);
    expect(again).toHaveLength(1);
  });
});

describe("trigger definitions shared between collectors", () => {
  it("triggers created through either collector after both started are evaluated once, on every collector's data", async () => {
    const a = await collector();
    const b = await collector();
    // One through each: whichever collector owns the tenant, one of them was created elsewhere.
    for (const [col, id] of [
      [a, "via-a"],
      [b, "via-b"],
    ] as const) {
      const trigger = { trigger: { id, name: id, enabled: true, autoDisable: true }, conditions: [{ type: "THRESHOLD", dataId: "load", operator: "GT", threshold: 10 }] };
      expect((await col.req("/svc/alerts/triggers/trigger", { method: "POST", json: trigger })).status).toBe(200);
    }
    await Bun.sleep(1500); // the other collector reads the change within a poll (500 ms)
    const ag = await agent("edge-4");
    const from = Date.now() - 3_600_000;
    const N = 20;
    for (let i = 0; i < N; i++) await pushBatch(ag, "load", from + i * 5000, 1, 5000, 20);
    await expectEveryPointOnce([a, b], "load", Array.from({ length: N }, (_, k) => from + k * 5000));
    const alertsOf = async (col: TestCollector, id: string) => (await (await col.req(`/svc/alerts?triggerIds=${id}`)).json()) as unknown[];
    await waitFor("both alerts", async () => ((await alertsOf(a, "via-a")).length > 0 && (await alertsOf(a, "via-b")).length > 0 ? true : undefined));
    await Bun.sleep(1500);
    for (const id of ["via-a", "via-b"]) {
      expect(await alertsOf(a, id)).toHaveLength(1);
      expect(await alertsOf(b, id)).toHaveLength(1);
    }
  });
});

describe("watch streams on every collector", () => {
  it("an event stored through one collector and an alert fired by the tenant's owner reach the watch streams of both", async () => {
    const a = await collector();
    const b = await collector();
    // Tenant w1: no other test here stores its events, which a watch stream would replay first.
    const watches = [await openWatchStream(a, "/events/watch", "w1"), await openWatchStream(b, "/events/watch", "w1")];
    cleanup.push(async () => {
      for (const w of watches) await w.close();
    });
    for (const [col, id] of [
      [a, "noted-via-a"],
      [b, "noted-via-b"],
    ] as const) {
      expect((await col.req("/svc/alerts/events", { method: "POST", tenant: "w1", json: { id, category: "C", text: id } })).status).toBe(200);
      for (const w of watches) expect((await w.next()).id).toBe(id);
    }
    const trigger = { trigger: { id: "watched", name: "watched", enabled: true }, conditions: [{ type: "THRESHOLD", dataId: "w.temp", operator: "GT", threshold: 10 }] };
    expect((await a.req("/svc/alerts/triggers/trigger", { method: "POST", tenant: "w1", json: trigger })).status).toBe(200);
    await Bun.sleep(1500); // the other collector reads the trigger change within a poll (500 ms)
    // Data through each collector: whichever owns the tenant fires, and both streams show it once.
    expect((await b.req("/svc/alerts/data", { method: "POST", tenant: "w1", json: [{ id: "w.temp", value: 50, timestamp: Date.now() }] })).status).toBe(200);
    for (const w of watches) expect(await w.next()).toMatchObject({ eventType: "ALERT", status: "OPEN", trigger: { id: "watched" } });
  });
});
