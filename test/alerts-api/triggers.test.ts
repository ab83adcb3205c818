import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AlertsClient, alertsClient, expectError, thresholdTrigger } from "./helpers.ts";

let col: TestCollector;
let api: AlertsClient;
beforeAll(async () => {
  col = await startTestCollector();
  api = alertsClient(col);
});
afterAll(async () => {
  await col.close();
});

describe("alerting interface: conventions", () => {
  it("answers GET /status without a tenant", async () => {
    const res = await col.req("/svc/alerts/status", { tenant: null });
    expect(res.status).toBe(200);
    expect((await body(res)).status).toBe("STARTED");
  });

  it("requires the tenant header everywhere else, under both roots", async () => {
    await expectError(await col.req("/svc/alerts/triggers", { tenant: null }), 400, /Tenant header is required/);
    await expectError(await col.req("/hawkular/alerts", { tenant: null }), 400, /Tenant/);
    const res = await col.req("/hawkular/alerts/triggers", { tenant: null, headers: { "Hawkular-Tenant": "t1" } });
    expect(res.status).toBe(200);
  });

  it("rejects unknown query parameters, naming only them", async () => {
    const msg = await expectError(await api.get("/triggers?triggerIds=a&bogus=1&other=2"), 400, /Unknown Query Parameter/);
    expect(msg).toContain("bogus");
    expect(msg).toContain("other");
    expect(msg).not.toContain("triggerIds");
    expect((await api.get("/triggers?bogus=1&ignoreUnknownQueryParams")).status).toBe(200);
  });

  it("answers 405 for a method a path does not support and 404 for unknown paths", async () => {
    expect((await api.del("/triggers")).status).toBe(405);
    expect((await api.post("/plugins", {})).status).toBe(405);
    expect((await api.get("/triggers/x/nothing/here")).status).toBe(404);
  });

  it("answers 400 for a body that is not JSON", async () => {
    const res = await col.req("/svc/alerts/triggers", { method: "POST", body: "{not json", headers: { "Content-Type": "application/json" } });
    await expectError(res, 400, /JSON/);
  });
});

describe("triggers: create, read, update, delete", () => {
  it("creates a trigger with defaults (200, not 201), and 400 for the same id again", async () => {
    const t = await api.ok("POST", "/triggers", { id: "crud-1", name: "CPU high", tags: { app: "web" } });
    expect(t).toMatchObject({
      tenantId: "t1",
      id: "crud-1",
      type: "STANDARD",
      eventType: "ALERT",
      severity: "MEDIUM",
      enabled: false,
      autoResolve: false,
      autoResolveAlerts: false,
      firingMatch: "ALL",
      autoResolveMatch: "ALL",
    });
    await expectError(await api.post("/triggers", { id: "crud-1" }), 400, /Trigger with ID \[crud-1\] exists/);
    expect(await api.ok("GET", "/triggers/crud-1")).toEqual(t);
  });

  it("generates an id when none is given and overwrites the tenant from the header", async () => {
    const t = await api.ok("POST", "/triggers", { name: "no id", tenantId: "someone-else" });
    expect(t.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.tenantId).toBe("t1");
  });

  it("validates: empty tag names or values, bad enums and types are 400s", async () => {
    await expectError(await api.post("/triggers", { id: "bad-1", tags: { "": "x" } }), 400, /tag names must not be empty/);
    await expectError(await api.post("/triggers", { id: "bad-2", tags: { a: "" } }), 400, /empty value/);
    await expectError(await api.post("/triggers", { id: "bad-3", severity: "HUGE" }), 400, /severity/);
    await expectError(await api.post("/triggers", { id: "bad-4", autoResolve: "perhaps" }), 400, /autoResolve/);
    await expectError(await api.post("/triggers", [1, 2]), 400);
  });

  it("rejects actions of unknown plugins or definitions", async () => {
    await expectError(await api.post("/triggers", { id: "act-1", actions: [{ actionPlugin: "sms", actionId: "x" }] }), 400, /Plugin: sms is not deployed/);
    await expectError(
      await api.post("/triggers", { id: "act-2", actions: [{ actionPlugin: "webhook", actionId: "missing" }] }),
      400,
      /webhook\/missing.*does not exist/,
    );
    expect((await api.get("/triggers/act-1")).status).toBe(404);
  });

  it("updates a trigger (PUT /triggers/{id}) and keeps its conditions; 404 for an unknown id", async () => {
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("upd-1", "upd.metric"));
    const t = await api.ok("PUT", "/triggers/upd-1", { name: "renamed", severity: "HIGH", enabled: true, id: "ignored" });
    expect(t).toMatchObject({ id: "upd-1", name: "renamed", severity: "HIGH", enabled: true });
    expect(await api.ok("GET", "/triggers/upd-1/conditions")).toHaveLength(1);
    await expectError(await api.put("/triggers/nope", { name: "x" }), 404, /nope/);
  });

  it("deletes a trigger: 200, then 404", async () => {
    await api.ok("POST", "/triggers", { id: "del-1" });
    expect((await api.del("/triggers/del-1")).status).toBe(200);
    await expectError(await api.get("/triggers/del-1"), 404, /del-1/);
    await expectError(await api.del("/triggers/del-1"), 404);
  });

  it("lists triggers with triggerIds, deprecated tags, tagQuery and paging", async () => {
    for (const [id, tags] of [
      ["list-a", { team: "db", tier: "1" }],
      ["list-b", { team: "db", tier: "2" }],
      ["list-c", { team: "web" }],
    ] as const) {
      await api.ok("POST", "/triggers", { id, tags });
    }
    const ids = (res: { id: string }[]) => res.map((t) => t.id).sort();
    expect(ids(await api.ok("GET", "/triggers?triggerIds=list-a,list-c"))).toEqual(["list-a", "list-c"]);
    expect(ids(await api.ok("GET", "/triggers?tags=team|db"))).toEqual(["list-a", "list-b"]);
    expect(ids(await api.ok("GET", "/triggers?tags=team|*"))).toEqual(["list-a", "list-b", "list-c"]);
    expect(ids(await api.ok("GET", `/triggers?tagQuery=${encodeURIComponent("team = db and tier = '2'")}`))).toEqual(["list-b"]);
    await expectError(await api.get("/triggers?tags=team"), 400, /name\|value/);
    await expectError(await api.get(`/triggers?tagQuery=${encodeURIComponent("team = (")}`), 400);

    const res = await api.get("/triggers?triggerIds=list-a,list-b,list-c&per_page=2&page=0&sort=id&order=desc");
    expect(res.status).toBe(200);
    expect(res.headers.get("X-Total-Count")).toBe("3");
    const link = res.headers.get("Link")!;
    expect(link).toContain('rel="current"');
    expect(link).toMatch(/page=1[^>]*>; rel="next"/);
    expect(link).toMatch(/page=1[^>]*>; rel="last"/);
    expect((await body(res)).map((t: { id: string }) => t.id)).toEqual(["list-c", "list-b"]);
    const second = await api.get("/triggers?triggerIds=list-a,list-b,list-c&per_page=2&page=1&sort=id&order=desc");
    expect(second.headers.get("Link")).toMatch(/page=0[^>]*>; rel="prev"/);
    expect((await body(second)).map((t: { id: string }) => t.id)).toEqual(["list-a"]);
    await expectError(await api.get("/triggers?per_page=0"), 400, /per_page/);
    await expectError(await api.get("/triggers?sort=id&order=sideways"), 400, /order/);
  });

  it("keeps tenants apart", async () => {
    await api.ok("POST", "/triggers", { id: "mine" }, "tenant-a");
    expect((await api.get("/triggers/mine", "tenant-b")).status).toBe(404);
    expect(await api.ok("GET", "/triggers", undefined, "tenant-b")).toEqual([]);
    await api.ok("POST", "/triggers", { id: "mine" }, "tenant-b");
    expect((await api.del("/triggers/mine", "tenant-b")).status).toBe(200);
    expect((await api.get("/triggers/mine", "tenant-a")).status).toBe(200);
  });
});

describe("full triggers", () => {
  it("creates and reads a full trigger with conditions of both modes and dampenings", async () => {
    const full = await api.ok("POST", "/triggers/trigger", {
      trigger: { id: "full-1", name: "full", autoResolve: true },
      conditions: [
        { type: "THRESHOLD", dataId: "x", operator: "GT", threshold: 5 },
        { type: "threshold", dataId: "y", operator: "LT", threshold: 1, triggerMode: "FIRING" },
        { type: "THRESHOLD", dataId: "x", operator: "LTE", threshold: 5, triggerMode: "AUTORESOLVE" },
      ],
      dampenings: [{ type: "RELAXED_COUNT", evalTrueSetting: 2, evalTotalSetting: 3 }],
    });
    expect(full.conditions.map((c: { conditionId: string }) => c.conditionId)).toEqual([
      "t1-full-1-FIRING-2-1",
      "t1-full-1-FIRING-2-2",
      "t1-full-1-AUTORESOLVE-1-1",
    ]);
    expect(full.conditions[0].displayString).toBeTruthy();
    expect(full.dampenings[0]).toMatchObject({ dampeningId: "t1-full-1-FIRING", type: "RELAXED_COUNT", evalTrueSetting: 2, evalTotalSetting: 3 });
    expect(await api.ok("GET", "/triggers/trigger/full-1")).toEqual(full);
    await expectError(await api.get("/triggers/trigger/none"), 404);
  });

  it("validates full triggers: missing trigger, dampening bounds, two dampenings of one mode, bad conditions", async () => {
    await expectError(await api.post("/triggers/trigger", { conditions: [] }), 400, /trigger/);
    const bounds = [
      { type: "STRICT", evalTrueSetting: 0 },
      { type: "RELAXED_COUNT", evalTrueSetting: 3, evalTotalSetting: 3 },
      { type: "RELAXED_TIME", evalTrueSetting: 2, evalTimeSetting: 0 },
      { type: "STRICT_TIMEOUT", evalTimeSetting: -5 },
    ];
    for (const d of bounds) {
      await expectError(await api.post("/triggers/trigger", { trigger: { id: "bounds" }, dampenings: [d] }), 400, /evalT/);
    }
    await expectError(
      await api.post("/triggers/trigger", { trigger: { id: "two" }, dampenings: [{ type: "STRICT", evalTrueSetting: 1 }, { type: "STRICT", evalTrueSetting: 2 }] }),
      400,
      /more than one dampening/,
    );
    await expectError(
      await api.post("/triggers/trigger", { trigger: { id: "cond" }, conditions: [{ type: "THRESHOLD", dataId: "x", operator: "ABOVE", threshold: 1 }] }),
      400,
      /operator/,
    );
    await expectError(
      await api.post("/triggers/trigger", { trigger: { id: "member" , type: "MEMBER" } }),
      400,
      /groups\/members/,
    );
  });

  it("replaces a full trigger with PUT /triggers/trigger/{id}", async () => {
    await api.ok("POST", "/triggers/trigger", thresholdTrigger("full-2", "a"));
    const updated = await api.ok("PUT", "/triggers/trigger/full-2", {
      trigger: { name: "replaced", enabled: true },
      conditions: [{ type: "STRING", dataId: "s", operator: "CONTAINS", pattern: "err" }],
      dampenings: [{ type: "STRICT", evalTrueSetting: 2, triggerMode: "FIRING" }],
    });
    expect(updated.trigger).toMatchObject({ id: "full-2", name: "replaced" });
    const got = await api.ok("GET", "/triggers/trigger/full-2");
    expect(got.conditions).toHaveLength(1);
    expect(got.conditions[0].type).toBe("STRING");
    expect(got.dampenings[0].evalTrueSetting).toBe(2);
    await expectError(await api.put("/triggers/trigger/none", { trigger: {} }), 404);
  });
});

describe("enablement, conditions and dampenings", () => {
  it("enables and disables triggers with PUT /triggers/enabled", async () => {
    await api.ok("POST", "/triggers", { id: "en-1" });
    await api.ok("POST", "/triggers", { id: "en-2" });
    expect((await api.put("/triggers/enabled?triggerIds=en-1,en-2&enabled=true")).status).toBe(200);
    expect((await api.ok("GET", "/triggers/en-1")).enabled).toBe(true);
    expect((await api.ok("GET", "/triggers/en-2")).enabled).toBe(true);
    expect((await api.put("/triggers/enabled?triggerIds=en-2&enabled=false")).status).toBe(200);
    expect((await api.ok("GET", "/triggers/en-2")).enabled).toBe(false);
    await expectError(await api.put("/triggers/enabled?enabled=true"), 400, /TriggerIds/);
    await expectError(await api.put("/triggers/enabled?triggerIds=en-1"), 400, /Enabled/);
    await expectError(await api.put("/triggers/enabled?triggerIds=en-1&enabled=maybe"), 400, /enabled/);
    await expectError(await api.put("/triggers/enabled?triggerIds=nope&enabled=true"), 404);
  });

  it("sets conditions of all modes and of one mode (case-insensitive), with set sizes per mode", async () => {
    await api.ok("POST", "/triggers", { id: "cnd-1" });
    const all = await api.ok("PUT", "/triggers/cnd-1/conditions", [
      { type: "THRESHOLD", dataId: "m", operator: "GT", threshold: 1 },
      { type: "THRESHOLD", dataId: "m", operator: "LT", threshold: 1, triggerMode: "AUTORESOLVE" },
    ]);
    expect(all).toHaveLength(2);
    const firing = await api.ok("PUT", "/triggers/cnd-1/conditions/firing", [
      { type: "AVAILABILITY", dataId: "av", operator: "DOWN" },
      { type: "MISSING", dataId: "m", interval: 60000, triggerMode: "FIRING" },
    ]);
    expect(firing.map((c: { conditionId: string }) => c.conditionId)).toEqual(["t1-cnd-1-FIRING-2-1", "t1-cnd-1-FIRING-2-2"]);
    const stored = await api.ok("GET", "/triggers/cnd-1/conditions");
    expect(stored.filter((c: { triggerMode: string }) => c.triggerMode === "AUTORESOLVE")).toHaveLength(1);
    expect(stored).toHaveLength(3);
    await expectError(
      await api.put("/triggers/cnd-1/conditions/AUTORESOLVE", [{ type: "THRESHOLD", dataId: "m", operator: "GT", threshold: 1, triggerMode: "FIRING" }]),
      400,
      /different triggerMode/,
    );
    await expectError(await api.put("/triggers/cnd-1/conditions/SOMETIMES", []), 400, /triggerMode/);
    await expectError(await api.put("/triggers/none/conditions", []), 404);
    await expectError(await api.put("/triggers/cnd-1/conditions", [{ type: "MISSING", dataId: "m", interval: 0 }]), 400, /interval/);
  });

  it("manages dampenings: one per mode, read by id and by mode, update keeps the mode, delete", async () => {
    await api.ok("POST", "/triggers", { id: "dmp-1" });
    const d = await api.ok("POST", "/triggers/dmp-1/dampenings", { type: "STRICT", evalTrueSetting: 3 });
    expect(d).toMatchObject({ dampeningId: "t1-dmp-1-FIRING", triggerMode: "FIRING", evalTrueSetting: 3, evalTotalSetting: 3 });
    await expectError(await api.post("/triggers/dmp-1/dampenings", { type: "STRICT", evalTrueSetting: 1 }), 400, /Existing dampening/);
    await api.ok("POST", "/triggers/dmp-1/dampenings", { type: "STRICT_TIME", evalTimeSetting: 5000, triggerMode: "AUTORESOLVE" });
    expect(await api.ok("GET", "/triggers/dmp-1/dampenings")).toHaveLength(2);
    expect(await api.ok("GET", "/triggers/dmp-1/dampenings/mode/AUTORESOLVE")).toMatchObject([{ type: "STRICT_TIME", evalTimeSetting: 5000 }]);
    expect(await api.ok("GET", "/triggers/dmp-1/dampenings/t1-dmp-1-FIRING")).toEqual(d);
    const upd = await api.ok("PUT", "/triggers/dmp-1/dampenings/t1-dmp-1-AUTORESOLVE", { type: "RELAXED_TIME", evalTrueSetting: 2, evalTimeSetting: 1000 });
    expect(upd).toMatchObject({ triggerMode: "AUTORESOLVE", type: "RELAXED_TIME" });
    await expectError(
      await api.put("/triggers/dmp-1/dampenings/t1-dmp-1-AUTORESOLVE", { type: "STRICT", evalTrueSetting: 1, triggerMode: "FIRING" }),
      400,
      /cannot change/,
    );
    await expectError(await api.put("/triggers/dmp-1/dampenings/t1-dmp-1-FIRING", { type: "RELAXED_COUNT", evalTrueSetting: 2, evalTotalSetting: 1 }), 400);
    const deleted = await api.ok("DELETE", "/triggers/dmp-1/dampenings/t1-dmp-1-FIRING");
    expect(deleted.dampeningId).toBe("t1-dmp-1-FIRING");
    await expectError(await api.get("/triggers/dmp-1/dampenings/t1-dmp-1-FIRING"), 404);
    await expectError(await api.del("/triggers/dmp-1/dampenings/t1-dmp-1-FIRING"), 404);
    await expectError(await api.get("/triggers/dmp-1/dampenings/mode/NEVER"), 400);
    // the spec lists no 404 for these reads: an unknown trigger has no conditions or dampenings
    expect(await api.ok("GET", "/triggers/none/dampenings")).toEqual([]);
    expect(await api.ok("GET", "/triggers/none/dampenings/mode/FIRING")).toEqual([]);
    expect(await api.ok("GET", "/triggers/none/conditions")).toEqual([]);
  });
});
