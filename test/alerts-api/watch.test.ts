import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AlertsClient, alertsClient, expectError, nextTimestamp, thresholdTrigger } from "./helpers.ts";
import { openWatchStream } from "./watch-reader.ts";

let col: TestCollector;
let api: AlertsClient;
const HEARTBEAT_MS = 150;

beforeAll(async () => {
  col = await startTestCollector({ "watch-heartbeat": HEARTBEAT_MS });
  api = alertsClient(col);
});
afterAll(async () => {
  await col.close();
});

const openWatch = (path: string, tenant = "t1") => openWatchStream(col, path, tenant);

const fire = (dataId: string, tenant = "t1") =>
  api.ok("POST", "/data", [{ id: dataId, timestamp: nextTimestamp(), value: 100 }], tenant);

describe("GET /watch", () => {
  it("sends the first query's alerts, then new alerts and lifecycle changes, only those matching", async () => {
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("w-1", "w1.v"));
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("w-other", "wo.v"));
    await fire("w1.v");
    const [existing] = await api.ok("GET", "/?triggerIds=w-1");
    const watch = await openWatch("/watch?triggerIds=w-1");
    try {
      expect((await watch.next()).id).toBe(existing.id);
      await fire("wo.v");
      await fire("w1.v");
      const second = await watch.next();
      expect(second.trigger.id).toBe("w-1");
      expect(second.id).not.toBe(existing.id);
      await api.ok("PUT", `/ack/${existing.id}?ackBy=ann`);
      const acked = await watch.next();
      expect(acked).toMatchObject({ id: existing.id, status: "ACKNOWLEDGED" });
    } finally {
      await watch.close();
    }
  });

  it("applies time criteria to the first query only", async () => {
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("w-2", "w2.v"));
    await fire("w2.v");
    const watch = await openWatch(`/watch?triggerIds=w-2&startTime=${Date.now() + 3_600_000}&thin=true`);
    try {
      await fire("w2.v");
      const item = await watch.next();
      expect(item.trigger.id).toBe("w-2");
      expect(item.evalSets).toBeUndefined();
      expect((await api.ok("GET", "/?triggerIds=w-2")).length).toBe(2);
    } finally {
      await watch.close();
    }
  });

  it("keeps a quiet stream open with heartbeats (single spaces)", async () => {
    const watch = await openWatch("/watch?triggerIds=nothing-fires-this");
    try {
      await watch.until((raw) => raw.split("").filter((ch) => ch === " ").length >= 3);
      expect(watch.raw.trim()).toBe("");
    } finally {
      await watch.close();
    }
  });

  it("accepts watchInterval and delivers changes in order of lifecycle time", async () => {
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("w-3", "w3.v"));
    const watch = await openWatch("/watch?triggerIds=w-3&watchInterval=1");
    try {
      await fire("w3.v");
      const a = await watch.next();
      await api.ok("PUT", `/resolve/${a.id}`);
      const resolved = await watch.next();
      expect(resolved).toMatchObject({ id: a.id, status: "RESOLVED" });
    } finally {
      await watch.close();
    }
  });

  it("answers bad parameters with 400 before streaming", async () => {
    await expectError(await api.get("/watch?statuses=SLEEPING"), 400, /statuses/);
    await expectError(await api.get("/watch?watchInterval=-1"), 400, /watchInterval/);
    await expectError(await api.get("/watch?page=1"), 400, /Unknown Query Parameter/);
  });
});

describe("cross-tenant operations", () => {
  beforeAll(async () => {
    for (const tenant of ["x1", "x2", "x3"]) {
      const c = alertsClient(col, tenant);
      await c.ok("POST", "/triggers/trigger", thresholdTrigger("admin-t", "adm.v"));
      await fire("adm.v", tenant);
      await c.ok("POST", "/events", { id: `ev-${tenant}`, ctime: 1000, category: "ADMIN", text: tenant });
    }
  });

  it("reads alerts and events of the tenants listed in the header", async () => {
    const alerts = await api.ok("GET", "/admin/alerts?triggerIds=admin-t", undefined, "x1,x2");
    expect(alerts.map((a: { tenantId: string }) => a.tenantId).sort()).toEqual(["x1", "x2"]);
    const thin = await api.ok("GET", "/admin/alerts?triggerIds=admin-t&thin=true", undefined, "x1, x3");
    expect(thin.every((a: { evalSets?: unknown }) => a.evalSets === undefined)).toBe(true);
    expect(thin.map((a: { tenantId: string }) => a.tenantId).sort()).toEqual(["x1", "x3"]);
    const events = await api.ok("GET", "/admin/events?categories=ADMIN", undefined, "x2,x3");
    expect(events.map((e: { id: string }) => e.id).sort()).toEqual(["ev-x2", "ev-x3"]);
    // first version: eventType ALERT reads alerts as events
    const asEvents = await api.ok("GET", "/admin/events?eventType=ALERT&triggerIds=admin-t", undefined, "x1,x2,x3");
    expect(asEvents).toHaveLength(3);
    await expectError(await api.get("/admin/events?eventType=THING", "x1"), 400, /eventType/);
    // a plain request with one of those tenants sees only its own
    expect(await api.ok("GET", "/?triggerIds=admin-t", undefined, "x1")).toHaveLength(1);
  });

  it("watches alerts and events of several tenants", async () => {
    const alerts = await openWatch("/admin/watch/alerts?triggerIds=admin-t", "x1,x2");
    const events = await openWatch("/admin/watch/events?categories=LIVE", "x2,x3");
    try {
      const initial = [await alerts.next(), await alerts.next()];
      expect(initial.map((a) => a.tenantId).sort()).toEqual(["x1", "x2"]);
      await fire("adm.v", "x3"); // not watched
      await fire("adm.v", "x2");
      expect((await alerts.next()).tenantId).toBe("x2");

      await api.ok("POST", "/events", { id: "live-1", category: "LIVE", text: "a" }, "x1"); // not watched
      await api.ok("POST", "/events", { id: "live-2", category: "LIVE", text: "b" }, "x3");
      expect(await events.next()).toMatchObject({ id: "live-2", tenantId: "x3" });
    } finally {
      await alerts.close();
      await events.close();
    }
  });
});
