import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PostgresAlertsStore } from "../../collector/store/alerts/postgres.ts";
import { SqliteAlertsStore } from "../../collector/store/alerts/sqlite.ts";
import type { AlertsStore, StoredAction } from "../../collector/store/alerts/types.ts";
import type { Action, Alert, Event, FullTrigger } from "../../src/alerts/model.ts";
import { completeFullTrigger } from "../../src/alerts/complete.ts";
import { fullTriggerSchema } from "../../src/alerts/schemas.ts";
import { createLogger } from "../../src/log/logger.ts";
import { fileTestDatabase } from "../helpers/postgres.ts";

/** The alerts store's contract, run on SQLite and on PostgreSQL alike. */
const log = createLogger("silent");
const dirs: string[] = [];
const pg = fileTestDatabase({
  truncate: ["triggers", "alerts", "events", "action_definitions", "action_history"],
  async cleanup() {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  },
});

/** Opens a store on one place; calling it again reopens the same data. */
const backends: { name: string; place(): () => AlertsStore }[] = [
  {
    name: "SQLite",
    place() {
      const d = mkdtempSync(join(tmpdir(), "outpost-astore-"));
      dirs.push(d);
      return () => new SqliteAlertsStore({ dataDir: d, log, synchronous: "NORMAL" });
    },
  },
  { name: "PostgreSQL", place: () => () => new PostgresAlertsStore({ sql: pg.sql, log }) },
];

const trigger = (tenantId: string, id: string, extra: Record<string, unknown> = {}): FullTrigger =>
  completeFullTrigger(fullTriggerSchema.parse({ trigger: { id, name: `trigger ${id}`, ...extra } }), tenantId);

const T0 = 1_700_000_000_000;

function alert(tenantId: string, id: string, ctime: number, more: Partial<Alert> = {}): Alert {
  return {
    eventType: "ALERT",
    tenantId,
    id,
    ctime,
    category: "ALERT",
    text: `alert ${id}`,
    severity: "MEDIUM",
    status: "OPEN",
    lifecycle: [{ status: "OPEN", user: "system", stime: ctime }],
    trigger: trigger(tenantId, "trg").trigger,
    ...more,
  };
}

function event(tenantId: string, id: string, ctime: number, category = "DEPLOYMENT"): Event {
  return { eventType: "EVENT", tenantId, id, ctime, category, text: `event ${id}` };
}

function action(key: string, tenantId: string, eventId: string, ctime: number, result = "WAITING"): StoredAction {
  const a: Action = { tenantId, actionPlugin: "email", actionId: "notify-ops", properties: {}, eventId, ctime, result };
  return { key, action: a };
}

describe.each(backends)("$name alerts store", ({ place }) => {
  it("writes, reads, groups and removes triggers, per tenant, and keeps them across a reopen", async () => {
    const open = place();
    const s = open();
    await s.writeTriggers({ put: [trigger("t1", "b"), trigger("t1", "a", { enabled: true }), trigger("t2", "a", { enabled: true }), trigger("t1", "g", { type: "GROUP" })] });
    await s.writeTriggers({ put: [trigger("t1", "m1", { memberOf: "g" }), trigger("t1", "m2", { memberOf: "g" })] });
    expect((await s.triggers("t1")).map((f) => f.trigger.id)).toEqual(["a", "b", "g", "m1", "m2"]);
    expect((await s.triggers("t2")).map((f) => f.trigger.id)).toEqual(["a"]);
    expect((await s.members("t1", "g")).map((f) => f.trigger.id)).toEqual(["m1", "m2"]);
    expect(await s.members("t2", "g")).toEqual([]);
    expect(await s.trigger("t3", "a")).toBeUndefined();

    await s.setTriggerEnabled("t1", "a", false);
    await s.setTriggerMode("t1", "b", "AUTORESOLVE");
    // A group and its members replaced in one write: removed ones go, new ones come.
    await s.writeTriggers({ remove: [{ tenantId: "t1", id: "m2" }], put: [trigger("t1", "m3", { memberOf: "g" })] });
    await s.close();

    const again = open();
    expect((await again.allTriggers()).map((f) => `${f.trigger.tenantId}/${f.trigger.id}`)).toEqual(["t1/a", "t1/b", "t1/g", "t1/m1", "t1/m3", "t2/a"]);
    expect((await again.trigger("t1", "a"))?.trigger.enabled).toBe(false);
    expect((await again.trigger("t2", "a"))?.trigger.enabled).toBe(true);
    await again.resetModes();
    expect((await again.members("t1", "g")).map((f) => f.trigger.id)).toEqual(["m1", "m3"]);
    await again.close();
  });

  it("inserts alerts once, updates them, and finds them by every indexed criterion", async () => {
    const s = place()();
    const a1 = alert("t1", "a1", T0, { severity: "HIGH" });
    const a2 = alert("t1", "a2", T0 + 1000);
    const other = alert("t2", "a1", T0);
    expect((await s.insertAlerts([a1, a2, other])).map((a) => a.id)).toEqual(["a1", "a2", "a1"]);
    // The same ids again are skipped, and said so.
    expect(await s.insertAlerts([a1, alert("t1", "a3", T0 + 2000)])).toEqual([expect.objectContaining({ id: "a3" })]);

    const acked: Alert = { ...a2, status: "ACKNOWLEDGED", lifecycle: [...a2.lifecycle, { status: "ACKNOWLEDGED", user: "jay", stime: T0 + 5000 }] };
    await s.updateAlerts([acked]);
    expect(await s.alert("t1", "a2")).toEqual(acked);
    expect(await s.alert("t2", "a2")).toBeUndefined();

    const ids = async (rows: Parameters<AlertsStore["findAlerts"]>[0]) => (await s.findAlerts(rows)).map((a) => `${a.tenantId}/${a.id}`);
    expect(await ids({ tenants: ["t1"] })).toEqual(["t1/a1", "t1/a2", "t1/a3"]);
    expect(await ids({ tenants: ["t1", "t2"], startTime: T0, endTime: T0 + 1000 })).toEqual(["t1/a1", "t2/a1", "t1/a2"]);
    expect(await ids({ tenants: ["t1"], statuses: ["ACKNOWLEDGED"] })).toEqual(["t1/a2"]);
    expect(await ids({ tenants: ["t1"], severities: ["HIGH"] })).toEqual(["t1/a1"]);
    expect(await ids({ tenants: ["t1"], startAckTime: T0 + 5000, endAckTime: T0 + 5000 })).toEqual(["t1/a2"]);
    expect(await ids({ tenants: ["t1"], statusTimeAfter: T0 + 2000 })).toEqual(["t1/a2"]);
    expect(await ids({ tenants: ["t1"], triggerIds: ["trg"], ids: ["a3", "a1"] })).toEqual(["t1/a1", "t1/a3"]);
    expect(await ids({ tenants: ["t1"], ids: [] })).toEqual([]);
    expect(await ids({ tenants: [] })).toEqual([]);

    expect(await s.deleteAlerts("t1", ["a1", "missing"])).toBe(1);
    expect(await ids({ tenants: ["t1", "t2"] })).toEqual(["t2/a1", "t1/a2", "t1/a3"]);
    await s.close();
  });

  it("commits alerts, events and their waiting actions together, or nothing of them", async () => {
    const s = place()();
    const a = alert("t1", "fired", T0);
    const e = event("t1", "ev", T0 + 1);
    await s.commit({ insertAlerts: [a], insertEvents: [e], actions: [action("k1", "t1", "fired", T0)] });
    expect(await s.alert("t1", "fired")).toEqual(a);
    expect(await s.event("t1", "ev")).toEqual(e);
    expect((await s.waitingActions()).map((x) => x.key)).toEqual(["k1"]);

    // The action's key exists already: the whole commit fails, the new alert and event with it.
    const resolved: Alert = { ...a, status: "RESOLVED", lifecycle: [...a.lifecycle, { status: "RESOLVED", user: "system", stime: T0 + 9 }] };
    await expect(
      s.commit({ insertAlerts: [alert("t1", "second", T0 + 2)], updateAlerts: [resolved], insertEvents: [event("t1", "ev2", T0 + 3)], actions: [action("k1", "t1", "second", T0 + 2)] }),
    ).rejects.toThrow();
    expect(await s.alert("t1", "second")).toBeUndefined();
    expect(await s.event("t1", "ev2")).toBeUndefined();
    expect((await s.alert("t1", "fired"))?.status).toBe("OPEN");
    await s.close();
  });

  it("keeps events per tenant, finds them by criteria and deletes them", async () => {
    const s = place()();
    expect((await s.insertEvents([event("t1", "e1", T0), event("t1", "e2", T0 + 10, "LOG"), event("t2", "e1", T0)])).length).toBe(3);
    expect(await s.insertEvents([event("t1", "e1", T0)])).toEqual([]);
    await s.updateEvents([{ ...event("t1", "e1", T0, "CHANGED"), text: "edited" }]);
    expect((await s.event("t1", "e1"))?.text).toBe("edited");
    expect((await s.event("t2", "e1"))?.text).toBe("event e1");
    const ids = async (rows: Parameters<AlertsStore["findEvents"]>[0]) => (await s.findEvents(rows)).map((e) => `${e.tenantId}/${e.id}`);
    expect(await ids({ tenants: ["t1"], categories: ["CHANGED"] })).toEqual(["t1/e1"]);
    expect(await ids({ tenants: ["t1"], ctimeAfter: T0 })).toEqual(["t1/e2"]);
    expect(await ids({ tenants: ["t2"] })).toEqual(["t2/e1"]);
    expect(await s.deleteEvents("t2", ["e1", "e2"])).toBe(1);
    expect(await ids({ tenants: ["t1", "t2"] })).toEqual(["t1/e1", "t1/e2"]);
    await s.close();
  });

  it("stores action definitions per tenant and the action history by key", async () => {
    const s = place()();
    const def = { tenantId: "t1", actionPlugin: "email", actionId: "notify-ops", properties: { to: "ops@example.com" } };
    await s.putActionDefinitions([def, { ...def, tenantId: "t2", properties: { to: "other@example.com" } }]);
    await s.putActionDefinitions([{ ...def, properties: { to: "oncall@example.com" } }]);
    expect(await s.actionDefinitions("t1")).toEqual([{ ...def, properties: { to: "oncall@example.com" } }]);
    expect((await s.actionDefinition("t2", "email", "notify-ops"))?.properties).toEqual({ to: "other@example.com" });
    expect(await s.deleteActionDefinition("t1", "email", "notify-ops")).toBe(true);
    expect(await s.deleteActionDefinition("t1", "email", "notify-ops")).toBe(false);
    expect(await s.actionDefinitions("t2")).toHaveLength(1);

    await s.insertActions([action("k2", "t1", "a1", T0 + 2), action("k1", "t1", "a1", T0 + 1), action("k3", "t2", "a1", T0)]);
    await s.setActionResult("k1", "PROCESSED");
    await s.setActionResult("missing", "PROCESSED");
    expect((await s.waitingActions()).map((a) => a.key)).toEqual(["k3", "k2"]);
    expect((await s.findActions({ tenants: ["t1"], results: ["PROCESSED"] })).map((a) => [a.key, a.action.result])).toEqual([["k1", "PROCESSED"]]);
    expect((await s.findActions({ tenants: ["t1"], startTime: T0 + 2 })).map((a) => a.key)).toEqual(["k2"]);
    expect(await s.deleteActions(["k1", "k3", "nope"])).toBe(2);
    expect((await s.findActions({ tenants: ["t1", "t2"] })).map((a) => a.key)).toEqual(["k2"]);
    await s.close();
  });

  it("deletes long id lists in chunks", async () => {
    const s = place()();
    const many = Array.from({ length: 1203 }, (_, i) => alert("t1", `a${i}`, T0 + i));
    await s.insertAlerts(many);
    expect(await s.deleteAlerts("t1", many.map((a) => a.id))).toBe(1203);
    expect(await s.findAlerts({ tenants: ["t1"] })).toEqual([]);
    await s.close();
  });
});
