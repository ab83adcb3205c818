import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultPlugins } from "../../collector/alerts/actions/registry.ts";
import { AlertingService } from "../../collector/alerts/service.ts";
import { PostgresAlertsStore } from "../../collector/store/alerts/postgres.ts";
import { SqliteAlertsStore } from "../../collector/store/alerts/sqlite.ts";
import type { AlertsStore, StoredAction } from "../../collector/store/alerts/types.ts";
import type { Alert, Event } from "../../src/alerts/model.ts";
import { fullTriggerSchema } from "../../src/alerts/schemas.ts";
import { createLogger } from "../../src/log/logger.ts";
import { createTestDatabase, migrateAll, type TestDatabase } from "../helpers/postgres.ts";

/** The calls other collector code (agent synchronisation) makes, on a real store of either engine. */
const log = createLogger("silent");
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

/** A place for a store: a data folder, or a database of its own; `open` opens a store on it. */
interface Place {
  open(): AlertsStore;
  remove(): Promise<void>;
}

const backends: { name: string; place(): Promise<Place> }[] = [
  {
    name: "SQLite",
    async place() {
      const dir = mkdtempSync(join(tmpdir(), "outpost-alerting-api-"));
      return { open: () => new SqliteAlertsStore({ dataDir: dir, log, synchronous: "NORMAL" }), remove: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: "PostgreSQL",
    async place() {
      const db = await createTestDatabase();
      databases.push(db);
      await migrateAll(db.sql);
      return { open: () => new PostgresAlertsStore({ sql: db.sql, log }), remove: async () => undefined };
    },
  },
];

const full = (json: unknown) => fullTriggerSchema.parse(json);

describe.each(backends)("AlertingService on $name for agent synchronisation", ({ place }) => {
  let service: AlertingService;
  let home: Place;
  beforeAll(async () => {
    home = await place();
    service = new AlertingService({ store: home.open(), plugins: defaultPlugins(), log });
    await service.open();
  });
  afterAll(async () => {
    await service.close();
    await home.remove();
  });

  it("lists the triggers of a feed (by source or by the feed tag) and tells listeners about changes", async () => {
    const changes: [string, readonly string[]][] = [];
    const stop = service.onDefinitionsChanged((tenant, ids) => changes.push([tenant, ids]));
    await service.triggers.createFull("t1", full({ trigger: { id: "by-source", source: "feed-1" } }));
    await service.triggers.createFull("t1", full({ trigger: { id: "by-tag", tags: { feed: "feed-1" } } }));
    await service.triggers.createFull("t1", full({ trigger: { id: "central" } }));
    await service.triggers.createFull("t1", full({ trigger: { id: "group", type: "GROUP", source: "feed-1" } }));
    await service.triggers.createFull("t2", full({ trigger: { id: "other-tenant", source: "feed-1" } }));
    const ids = (await service.triggersForFeed("t1", "feed-1")).map((f) => f.trigger.id).sort();
    expect(ids).toEqual(["by-source", "by-tag"]);
    expect((await service.fullTriggers("t1", ["central"])).map((f) => f.trigger.id)).toEqual(["central"]);
    expect(changes).toContainEqual(["t1", ["by-source"]]);
    expect(changes).toContainEqual(["t2", ["other-tenant"]]);
    stop();
    const heard = changes.length;
    await service.triggers.remove("t1", "central");
    expect(changes.length).toBe(heard);
  });

  it("ingests what agents fired without firing again; redelivery is harmless; a resolution updates the alert", async () => {
    const alert: Alert = {
      eventType: "ALERT",
      tenantId: "spoofed",
      id: "agent-alert-1",
      ctime: 1000,
      dataId: "by-source",
      category: "ALERT",
      text: "from the edge",
      severity: "HIGH",
      status: "OPEN",
      lifecycle: [{ status: "OPEN", user: "system", stime: 1000 }],
      trigger: { ...(await service.triggers.get("t1", "by-source")) },
    };
    const event: Event = { eventType: "EVENT", tenantId: "t1", id: "agent-event-1", ctime: 1001, category: "EDGE", text: "hello" };
    expect(await service.ingestFired("t1", [alert, event])).toEqual({ created: 2, updated: 0, ignored: 0 });
    expect(await service.ingestFired("t1", [alert, event])).toEqual({ created: 0, updated: 0, ignored: 2 });
    const resolved: Alert = { ...alert, status: "RESOLVED", lifecycle: [...alert.lifecycle, { status: "RESOLVED", user: "AutoResolve", stime: 2000 }] };
    expect(await service.ingestFired("t1", [resolved])).toEqual({ created: 0, updated: 1, ignored: 0 });
    const stored = await service.alerts.get("t1", "agent-alert-1");
    expect(stored.tenantId).toBe("t1");
    expect(stored.status).toBe("RESOLVED");
    expect((await service.events.get("t1", "agent-event-1")).text).toBe("hello");
    // nothing was evaluated: no trigger of the tenant fired
    const page = await service.alerts.find(["t1"], {}, { page: 0, sort: [] });
    expect(page.items.map((a) => a.id)).toEqual(["agent-alert-1"]);
  });

  it("takes an alert fired and resolved during one outage, in one batch, in its latest state", async () => {
    const open: Alert = {
      eventType: "ALERT",
      tenantId: "t1",
      id: "outage-alert",
      ctime: 3000,
      category: "ALERT",
      text: "fired and resolved offline",
      severity: "LOW",
      status: "OPEN",
      lifecycle: [{ status: "OPEN", user: "system", stime: 3000 }],
      trigger: { ...(await service.triggers.get("t1", "by-source")) },
    };
    const resolved: Alert = { ...open, status: "RESOLVED", lifecycle: [...open.lifecycle, { status: "RESOLVED", user: "AutoResolve", stime: 4000 }] };
    expect(await service.ingestFired("t1", [open, resolved])).toEqual({ created: 1, updated: 0, ignored: 1 });
    expect((await service.alerts.get("t1", "outage-alert")).status).toBe("RESOLVED");
  });

  it("pushes agent action definitions, and stores what agents report of them once each", async () => {
    await service.actions.create("t1", { actionPlugin: "agent", actionId: "siren", properties: { run: "command", command: '["/usr/local/bin/siren"]' } });
    await service.actions.create("t1", { actionPlugin: "webhook", actionId: "central", properties: { url: "http://127.0.0.1:1/x" } });
    expect((await service.agentActionDefinitions("t1")).map((d) => d.actionId)).toEqual(["siren"]);
    const event: Event = { eventType: "EVENT", tenantId: "t1", id: "edge-event-7", ctime: 5000, category: "C", text: "edge" };
    const ran = { tenantId: "t1", actionPlugin: "agent", actionId: "siren", properties: { run: "command" }, eventId: "edge-event-7", event, ctime: 5100, endTime: 5200, result: "PROCESSED", resultMessage: "/usr/local/bin/siren exited with 0" };
    expect(await service.ingestAgentActions("t1", "feed-1", [ran])).toBe(1);
    expect(await service.ingestAgentActions("t1", "feed-1", [ran])).toBe(0);
    const page = await service.history.find("t1", { eventIds: ["edge-event-7"] }, { page: 0, sort: [] }, false);
    expect(page.items).toEqual([expect.objectContaining({ actionId: "siren", ctime: 5100, endTime: 5200, result: "PROCESSED", resultMessage: "/usr/local/bin/siren exited with 0" })]);
  });

  it("runs actions left WAITING by a stop when the service opens again", async () => {
    const other = mkdtempSync(join(tmpdir(), "outpost-alerting-resume-"));
    const stopped = await place();
    try {
      const path = join(other, "resumed.jsonl");
      const store = stopped.open();
      await store.insertActions([
        {
          key: "k1",
          action: {
            tenantId: "t1",
            actionPlugin: "file",
            actionId: "f",
            properties: { path },
            eventId: "e1",
            ctime: 1,
            event: { eventType: "EVENT", tenantId: "t1", id: "e1", ctime: 1, category: "C", text: "queued before the stop" },
            result: "WAITING",
          },
        },
      ]);
      await store.close();
      const resumed = new AlertingService({ store: stopped.open(), plugins: defaultPlugins(), log });
      await resumed.open();
      const until = Date.now() + 10_000;
      let result = "WAITING";
      while (result === "WAITING" && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 20));
        result = (await resumed.history.find("t1", {}, { page: 0, sort: [] }, true)).items[0]?.result ?? "missing";
      }
      await resumed.close();
      expect(result).toBe("PROCESSED");
      expect(JSON.parse(readFileSync(path, "utf8")).id).toBe("e1");
    } finally {
      rmSync(other, { recursive: true, force: true });
      await stopped.remove();
    }
  });

  it("among collectors sharing a database, resumes only the WAITING actions of the tenants this one owns", async () => {
    const other = mkdtempSync(join(tmpdir(), "outpost-alerting-resume-"));
    const stopped = await place();
    try {
      const waiting = (tenantId: string): StoredAction => ({
        key: `k-${tenantId}`,
        action: {
          tenantId,
          actionPlugin: "file",
          actionId: "f",
          properties: { path: join(other, `${tenantId}.jsonl`) },
          eventId: `e-${tenantId}`,
          ctime: 1,
          event: { eventType: "EVENT" as const, tenantId, id: `e-${tenantId}`, ctime: 1, category: "C", text: "queued before the stop" },
          result: "WAITING",
        },
      });
      const store = stopped.open();
      await store.insertActions([waiting("mine"), waiting("theirs")]);
      await store.close();
      const resumed = new AlertingService({ store: stopped.open(), plugins: defaultPlugins(), log });
      await resumed.open({ owns: (t) => t === "mine", ownsEverything: false });
      const resultOf = async (t: string) => (await resumed.history.find(t, {}, { page: 0, sort: [] }, true)).items[0]?.result ?? "missing";
      const until = Date.now() + 10_000;
      while ((await resultOf("mine")) === "WAITING" && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 200));
      expect(await resultOf("mine")).toBe("PROCESSED");
      expect(await resultOf("theirs")).toBe("WAITING"); // its owner resumes it
      await resumed.close();
      expect(existsSync(join(other, "theirs.jsonl"))).toBe(false);
    } finally {
      rmSync(other, { recursive: true, force: true });
      await stopped.remove();
    }
  });
});
