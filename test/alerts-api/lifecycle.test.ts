import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AlertsClient, alertsClient, eventually, nextTimestamp, thresholdTrigger } from "./helpers.ts";

let col: TestCollector;
let api: AlertsClient;
beforeAll(async () => {
  col = await startTestCollector();
  api = alertsClient(col);
});
afterAll(async () => {
  await col.close();
});

const send = (id: string, value: number | string) => api.ok("POST", "/data", [{ id, timestamp: nextTimestamp(), value }]);
const alertsOf = (triggerId: string) => api.ok("GET", `/?triggerIds=${triggerId}&sort=ctime&order=asc`);

describe("trigger lifecycle flows", () => {
  it("fires, acks and resolves an alert", async () => {
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("flow-1", "flow-1.v"));
    await send("flow-1.v", 5);
    expect(await alertsOf("flow-1")).toEqual([]);
    await send("flow-1.v", 50);
    const [a] = await alertsOf("flow-1");
    expect(a.status).toBe("OPEN");
    await api.ok("PUT", `/ack/${a.id}?ackBy=ann`);
    await api.ok("PUT", `/resolve/${a.id}?resolvedBy=ann`);
    const done = await api.ok("GET", `/alert/${a.id}`);
    expect(done.lifecycle.map((l: { status: string }) => l.status)).toEqual(["OPEN", "ACKNOWLEDGED", "RESOLVED"]);
  });

  it("autoResolve with autoResolveAlerts: AUTORESOLVE mode after firing, alerts resolved by AutoResolve, then FIRING again", async () => {
    await api.ok("POST", "/triggers/trigger", {
      trigger: { id: "ar-1", name: "auto", enabled: true, autoResolve: true, autoResolveAlerts: true },
      conditions: [
        { type: "THRESHOLD", dataId: "ar.v", operator: "GT", threshold: 10 },
        { type: "THRESHOLD", dataId: "ar.v", operator: "LT", threshold: 5, triggerMode: "AUTORESOLVE" },
      ],
    });
    await send("ar.v", 20);
    await send("ar.v", 25); // in AUTORESOLVE mode the firing condition is not evaluated
    const fired = await alertsOf("ar-1");
    expect(fired).toHaveLength(1);
    await send("ar.v", 1);
    const resolved = await api.ok("GET", `/alert/${fired[0].id}`);
    expect(resolved.status).toBe("RESOLVED");
    expect(resolved.lifecycle.at(-1).user).toBe("AutoResolve");
    expect(resolved.resolvedEvalSets).toMatchObject([[{ type: "THRESHOLD", value: 1 }]]);
    await send("ar.v", 30);
    const again = await alertsOf("ar-1");
    expect(again).toHaveLength(2);
    expect(again[1].status).toBe("OPEN");
  });

  it("autoResolve without autoResolveAlerts leaves the alert open; a user's resolve brings FIRING back", async () => {
    await api.ok("POST", "/triggers/trigger", {
      trigger: { id: "ar-2", enabled: true, autoResolve: true },
      conditions: [{ type: "THRESHOLD", dataId: "ar2.v", operator: "GT", threshold: 10 }],
    });
    await send("ar2.v", 20);
    await send("ar2.v", 21); // AUTORESOLVE mode, no auto-resolve conditions: nothing fires
    const [a] = await alertsOf("ar-2");
    expect((await alertsOf("ar-2")).length).toBe(1);
    expect(a.status).toBe("OPEN");
    await api.ok("PUT", `/resolve/${a.id}`);
    await send("ar2.v", 22);
    expect((await alertsOf("ar-2")).length).toBe(2);
  });

  it("autoDisable disables the trigger after firing (and stores that); autoEnable enables it when its alerts are resolved", async () => {
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("ad-1", "ad.v", 10, { autoDisable: true }));
    await send("ad.v", 20);
    expect((await api.ok("GET", "/triggers/ad-1")).enabled).toBe(false);
    await send("ad.v", 30);
    expect(await alertsOf("ad-1")).toHaveLength(1);

    await api.ok("POST", "/triggers/trigger", thresholdTrigger("ae-1", "ae.v", 10, { autoDisable: true, autoEnable: true }));
    await send("ae.v", 20);
    const [a] = await alertsOf("ae-1");
    expect((await api.ok("GET", "/triggers/ae-1")).enabled).toBe(false);
    await api.ok("PUT", `/resolve?alertIds=${a.id}&resolvedBy=ops`);
    expect((await api.ok("GET", "/triggers/ae-1")).enabled).toBe(true);
    await send("ae.v", 40);
    expect(await alertsOf("ae-1")).toHaveLength(2);
  });

  it("chains: an EVENT trigger's event fires an alert of a trigger with an event condition on it", async () => {
    await api.ok("POST", "/triggers/trigger", {
      trigger: { id: "chain-src", name: "source", enabled: true, eventType: "EVENT", eventCategory: "DEPLOY", eventText: "deployed" },
      conditions: [{ type: "STRING", dataId: "deploy.state", operator: "EQUAL", pattern: "done" }],
    });
    await api.ok("POST", "/triggers/trigger", {
      trigger: { id: "chain-dst", name: "after deploy", enabled: true, severity: "HIGH" },
      conditions: [{ type: "EVENT", dataId: "chain-src", expression: "category == 'DEPLOY',text starts 'dep'" }],
    });
    await send("deploy.state", "done");
    const events = await api.ok("GET", "/events?triggerIds=chain-src");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ eventType: "EVENT", category: "DEPLOY", text: "deployed", dataId: "chain-src" });
    const [alert] = await alertsOf("chain-dst");
    expect(alert.evalSets).toMatchObject([[{ type: "EVENT", value: { id: events[0].id } }]]);
  });

  it("API events: POST /events is stored and evaluated, POST /events/data only evaluated", async () => {
    await api.ok("POST", "/triggers/trigger", {
      trigger: { id: "ext-1", enabled: true },
      conditions: [{ type: "EVENT", dataId: "ext.src", expression: "tags.level == 'error'" }],
    });
    const created = await api.ok("POST", "/events", { id: "ext-e1", dataId: "ext.src", category: "LOG", text: "boom", tags: { level: "error" } });
    expect(created).toMatchObject({ id: "ext-e1", eventType: "EVENT", tenantId: "t1" });
    expect(typeof created.ctime).toBe("number");
    expect(await alertsOf("ext-1")).toHaveLength(1);
    await api.ok("POST", "/events/data", [{ id: "ext-e2", dataId: "ext.src", category: "LOG", text: "boom", tags: { level: "error" } }]);
    expect(await alertsOf("ext-1")).toHaveLength(2);
    expect((await api.get("/events/event/ext-e2")).status).toBe(404);
    expect((await api.get("/events/event/ext-e1")).status).toBe(200);
  });
});

describe("points written through the metrics interface feed the engine", () => {
  it("a gauge point fires a threshold trigger on the metric id, without POST /data", async () => {
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("m-gauge", "cpu.host1", 90, { severity: "CRITICAL" }));
    const res = await col.req("/svc/metrics/gauges/cpu.host1/raw", { method: "POST", json: [{ timestamp: Date.now(), value: 97.5 }] });
    expect(res.status).toBe(200);
    const alerts = await eventually(() => alertsOf("m-gauge"), (a) => a.length === 1, "an alert from a gauge point");
    expect(alerts[0].evalSets[0][0]).toMatchObject({ type: "THRESHOLD", value: 97.5, condition: { dataId: "cpu.host1" } });
  });

  it("availability points read as UP/DOWN; string and counter points pass their values", async () => {
    await api.ok("POST", "/triggers/trigger", {
      trigger: { id: "m-avail", enabled: true },
      conditions: [{ type: "AVAILABILITY", dataId: "svc.up", operator: "DOWN" }],
    });
    await api.ok("POST", "/triggers/trigger", {
      trigger: { id: "m-string", enabled: true },
      conditions: [{ type: "STRING", dataId: "log.line", operator: "CONTAINS", pattern: "ERROR" }],
    });
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("m-counter", "requests", 1000));
    const t = Date.now();
    await col.req("/svc/metrics/availability/svc.up/raw", { method: "POST", json: [{ timestamp: t, value: "up" }] });
    await col.req("/svc/metrics/availability/svc.up/raw", { method: "POST", json: [{ timestamp: t + 5000, value: "down" }] });
    await col.req("/svc/metrics/strings/log.line/raw", { method: "POST", json: [{ timestamp: t, value: "ERROR: disk full" }] });
    await col.req("/svc/metrics/counters/requests/raw", { method: "POST", json: [{ timestamp: t, value: 5000 }] });
    const avail = await eventually(() => alertsOf("m-avail"), (a) => a.length === 1, "an availability alert");
    expect(avail[0].evalSets[0][0]).toMatchObject({ type: "AVAILABILITY", value: "DOWN" });
    await eventually(() => alertsOf("m-string"), (a) => a.length === 1, "a string alert");
    await eventually(() => alertsOf("m-counter"), (a) => a.length === 1, "a counter alert");
  });

  it("points of one tenant never fire another tenant's triggers", async () => {
    const other = alertsClient(col, "t2");
    await other.ok("POST", "/triggers/trigger", thresholdTrigger("iso", "shared.metric", 1));
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("iso", "shared.metric", 1));
    await col.req("/svc/metrics/gauges/shared.metric/raw", { method: "POST", json: [{ timestamp: Date.now(), value: 50 }], tenant: "t2" });
    await eventually(() => other.ok("GET", "/?triggerIds=iso"), (a) => a.length === 1, "the t2 alert");
    await api.ok("POST", "/data", [{ id: "unrelated", timestamp: nextTimestamp(), value: 1 }]); // a round trip through the write queue
    expect(await alertsOf("iso")).toEqual([]);
  });
});
