import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultPlugins } from "../../collector/alerts/actions/registry.ts";
import { AlertingService } from "../../collector/alerts/service.ts";
import { PostgresAlertsStore } from "../../collector/store/alerts/postgres.ts";
import { SqliteAlertsStore } from "../../collector/store/alerts/sqlite.ts";
import type { AlertsStore } from "../../collector/store/alerts/types.ts";
import type { Alert, Event } from "../../src/alerts/model.ts";
import { fullTriggerSchema } from "../../src/alerts/schemas.ts";
import { createLogger } from "../../src/log/logger.ts";
import { StorageHealth } from "../../src/sqlite/storage-health.ts";
import { failStatements, SmallDisk } from "../helpers/full-disk.ts";
import { waitFor } from "../helpers/ports.ts";
import { failPostgresStatements, fileTestDatabase } from "../helpers/postgres.ts";

/**
 * What the alerting service does when its commits fail: nothing is announced or acted on
 * before it is stored, and nothing fired is dropped; it is stored (and acted on once) when the
 * storage works again.
 */
const log = createLogger("silent");
const cleanups: (() => void | Promise<void>)[] = [];
const pg = fileTestDatabase({
  truncate: ["triggers", "alerts", "events", "action_definitions", "action_history"],
  async cleanup() {
    for (const c of cleanups.splice(0).reverse()) await c();
  },
});

/** Where the service's store lives, and how one kind of statement on one table is made to fail there. */
interface Backend {
  name: string;
  store(dir: string, health: StorageHealth): AlertsStore;
  fail(dir: string, table: string, op?: "INSERT" | "UPDATE"): Promise<() => void | Promise<void>>;
}

const SQLITE: Backend = {
  name: "SQLite",
  store: (dir, health) => new SqliteAlertsStore({ dataDir: dir, log, synchronous: "NORMAL", health }),
  fail: async (dir, table, op) => failStatements(join(dir, "alerts.db"), table, op),
};
const POSTGRES: Backend = {
  name: "PostgreSQL",
  store: (_dir, health) => new PostgresAlertsStore({ sql: pg.sql, log, health }),
  fail: (_dir, table, op) => failPostgresStatements(pg.sql, table, op),
};

async function start(dataDir?: string, backend: Backend = SQLITE) {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "outpost-alerts-fail-"));
  if (!dataDir) cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const health = new StorageHealth({ log, probeIntervalMs: 100 });
  const service = new AlertingService({ store: backend.store(dir, health), plugins: defaultPlugins(), log });
  await service.open();
  cleanups.push(async () => {
    await service.close();
    health.close();
  });
  const actionFile = join(dir, "actions.jsonl");
  await service.actions.create("t1", { actionPlugin: "file", actionId: "f", properties: { path: actionFile } });
  await service.triggers.createFull(
    "t1",
    fullTriggerSchema.parse({
      trigger: { id: "hot", enabled: true, actions: [{ actionPlugin: "file", actionId: "f" }] },
      conditions: [{ type: "THRESHOLD", dataId: "temp", operator: "GT", threshold: 10 }],
    }),
  );
  const actionLines = () => (existsSync(actionFile) ? readFileSync(actionFile, "utf8").trim().split("\n").filter(Boolean) : []);
  return { dir, service, health, actionLines };
}

/** Collects what a watch hands out, as `id:status`. */
function listen(feed: Awaited<ReturnType<AlertingService["watchAlerts"]>>): string[] {
  const heard: string[] = [];
  void (async () => {
    while (!feed.closed) for (const a of await feed.take(20)) heard.push(`${a.id}:${a.status}`);
  })();
  return heard;
}

const agentAlert = async (service: AlertingService, id: string): Promise<Alert> => ({
  eventType: "ALERT",
  tenantId: "t1",
  id,
  ctime: 1000,
  dataId: "temp",
  category: "ALERT",
  text: "from the edge",
  severity: "HIGH",
  status: "OPEN",
  lifecycle: [{ status: "OPEN", user: "system", stime: 1000 }],
  trigger: { ...(await service.triggers.get("t1", "hot")) },
});

describe.each([SQLITE, POSTGRES])("alerting on $name when commits fail", (backend) => {
  it("stores an agent's batch all or nothing: a failed commit stores no alert, announces nothing, and redelivery acts once", async () => {
    const { dir, service, actionLines } = await start(undefined, backend);
    const feed = await service.watchAlerts(["t1"], {});
    const heard = listen(feed);
    const items: (Alert | Event)[] = [await agentAlert(service, "edge-1"), { eventType: "EVENT", tenantId: "t1", id: "edge-e1", ctime: 1001, category: "EDGE", text: "hi" }];
    // The last write of the transaction fails: the alert rows before it must roll back too.
    const release = await backend.fail(dir, "action_history");
    await expect(service.ingestFired("t1", items)).rejects.toThrow(/injected failure/);
    await expect(service.alerts.get("t1", "edge-1")).rejects.toThrow(/not found/);
    await expect(service.events.get("t1", "edge-e1")).rejects.toThrow(/not found/);
    await release();
    // The agent resends the batch for want of an ack.
    expect(await service.ingestFired("t1", items)).toEqual({ created: 2, updated: 0, ignored: 0 });
    await waitFor("the alert's action", () => (actionLines().length > 0 ? true : undefined), 5000);
    expect(await service.ingestFired("t1", items)).toEqual({ created: 0, updated: 0, ignored: 2 });
    await Bun.sleep(100);
    expect(actionLines().map((l) => JSON.parse(l).id)).toEqual(["edge-1"]);
    expect(heard).toEqual(["edge-1:OPEN"]);
    feed.close();
  });

  it("leaves an alert as stored, and unannounced, when the commit of an ack fails", async () => {
    const { dir, service } = await start(undefined, backend);
    await service.ingestFired("t1", [await agentAlert(service, "edge-2")]);
    const feed = await service.watchAlerts(["t1"], {});
    const heard = listen(feed);
    await Bun.sleep(50);
    const release = await backend.fail(dir, "alerts", "UPDATE");
    await expect(service.alerts.ack("t1", ["edge-2"], "ops", "looking")).rejects.toThrow(/injected failure/);
    expect((await service.alerts.get("t1", "edge-2")).status).toBe("OPEN");
    await release();
    await service.alerts.ack("t1", ["edge-2"], "ops", "looking");
    expect((await service.alerts.get("t1", "edge-2")).status).toBe("ACKNOWLEDGED");
    await waitFor("the ack announced", () => (heard.includes("edge-2:ACKNOWLEDGED") ? true : undefined), 5000);
    expect(heard.filter((h) => h.endsWith("ACKNOWLEDGED"))).toHaveLength(1);
    feed.close();
  });
});

describe("alerting on a full disk", () => {
  it("holds fired alerts while the disk is full, answers reads, and stores them (acting once) when space returns", async () => {
    const disk = new SmallDisk(8);
    cleanups.push(() => disk.dispose());
    const { service, health, actionLines } = await start(disk.dir);
    disk.fill();
    // Use up what room the database files still have, with large events, until a commit fails.
    let n = 0;
    for (const size of [64 * 1024, 4096, 100]) {
      const text = "x".repeat(size);
      for (let i = 0; i < 500; i++) {
        const e: Event = { eventType: "EVENT", tenantId: "t1", id: `filler-${n++}`, ctime: n, category: "FILL", text };
        if (!(await service.ingestFired("t1", [e]).then(() => true, () => false))) break;
      }
    }
    expect(health.failing).toBe("full");
    let t = 1_700_000_000_000;
    for (let i = 0; i < 3; i++) {
      await service.data.sendData("t1", [{ id: "temp", timestamp: (t += 5000), value: String(20 + i) }]);
    }
    const storedBefore = (await service.alerts.find(["t1"], {}, { page: 0, sort: [] })).total;
    expect(service.heldEffects).toBeGreaterThan(0);
    const held = service.heldEffects;
    disk.free();
    await waitFor("held alerts stored", () => (service.heldEffects === 0 ? true : undefined), 10_000);
    const stored = await service.alerts.find(["t1"], {}, { page: 0, sort: [] });
    expect(stored.total).toBe(storedBefore + held);
    await waitFor("one action per alert", () => (actionLines().length === stored.total ? true : undefined), 10_000);
    expect(new Set(actionLines().map((l) => JSON.parse(l).id)).size).toBe(stored.total);
  });
});
