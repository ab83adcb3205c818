import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AlertsClient, alertsClient, eventually, expectError } from "./helpers.ts";
import { openWatchStream } from "./watch-reader.ts";

/**
 * Hawkular Alerting behaviour its clients and its own REST suites rely on: chained events
 * (EventsLifecycleITest), alerts read as events, data-driven groups (GroupITest), group
 * conditions on the trigger path, the type of a trigger, and dampening defaults (the Python
 * client's tests).
 */

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector({ "watch-heartbeat": 200 });
});
afterAll(async () => {
  await col.close();
});

const ids = (list: { id: string }[]) => list.map((x) => x.id).sort();

/** Two EVENT triggers on app events, and an ALERT trigger whose two event conditions read them (firingMatch ALL). */
async function chainedTriggers(t: AlertsClient, prefix: string): Promise<void> {
  for (const app of ["app1", "app2"]) {
    await t.ok("POST", "/triggers", { id: `${prefix}-${app}`, name: `Check if ${app} is down`, eventType: "EVENT" });
    const conds = await t.ok("PUT", `/triggers/${prefix}-${app}/conditions/firing`, [
      { triggerMode: "FIRING", type: "EVENT", dataId: `${prefix}-${app}.war`, expression: "text == 'DOWN'" },
    ]);
    expect(conds).toHaveLength(1);
    await t.ok("PUT", `/triggers/enabled?triggerIds=${prefix}-${app}&enabled=true`);
  }
  await t.ok("POST", "/triggers", { id: `${prefix}-combined`, name: "App1 and App2 are down" });
  const conds = await t.ok("PUT", `/triggers/${prefix}-combined/conditions/firing`, [
    { triggerMode: "FIRING", type: "EVENT", dataId: `${prefix}-app1`, expression: null },
    { triggerMode: "FIRING", type: "EVENT", dataId: `${prefix}-app2`, expression: null },
  ]);
  expect(conds).toHaveLength(2);
  await t.ok("PUT", `/triggers/enabled?triggerIds=${prefix}-combined&enabled=true`);
}

const down = (dataId: string) => ({ id: crypto.randomUUID(), ctime: Date.now(), category: "DEPLOYMENT", dataId, text: "DOWN" });

describe("chained events", () => {
  it("an ALL trigger over two triggers' events fires when the second, separate event completes the set (t02)", async () => {
    const t = alertsClient(col, "chain");
    const start = Date.now();
    await chainedTriggers(t, "t02");
    await t.ok("POST", "/events", down("t02-app1.war"));
    expect(await t.ok("GET", `/?startTime=${start}&triggerIds=t02-combined`)).toEqual([]);
    await t.ok("POST", "/events", down("t02-app2.war"));
    const alerts = await eventually(() => t.ok("GET", `/?startTime=${start}&triggerIds=t02-combined`), (a) => a.length > 0, "the combined alert");
    expect(alerts).toHaveLength(1);
    // The events the two app triggers fired carry the trigger id as dataId.
    const fired = await t.ok("GET", `/events?triggerIds=t02-app1,t02-app2&eventType=EVENT`);
    expect(fired.map((e: { dataId: string }) => e.dataId).sort()).toEqual(["t02-app1", "t02-app2"]);
  });

  it("works the same with events sent for evaluation only, which are not stored (t03)", async () => {
    const t = alertsClient(col, "chain3");
    const start = Date.now();
    await chainedTriggers(t, "t03");
    const e1 = down("t03-app1.war");
    await t.ok("POST", "/events/data", [e1]);
    await expectError(await t.get(`/events/event/${e1.id}`), 404);
    await t.ok("POST", "/events/data", [down("t03-app2.war")]);
    const alerts = await eventually(() => t.ok("GET", `/?startTime=${start}&triggerIds=t03-combined`), (a) => a.length > 0, "the combined alert");
    expect(alerts).toHaveLength(1);
  });
});

describe("alerts are events", () => {
  it("in GET /events, /events/event/{id} and the admin events, with the eventType filter", async () => {
    const t = alertsClient(col, "ae");
    await t.ok("POST", "/triggers/trigger", {
      trigger: { id: "ae-t", name: "hot", enabled: true },
      conditions: [{ type: "THRESHOLD", dataId: "ae.temp", operator: "GT", threshold: 10 }],
    });
    await t.ok("POST", "/data", [{ id: "ae.temp", value: 50, timestamp: Date.now() }]);
    const [alert] = await eventually(() => t.ok("GET", "/?triggerIds=ae-t"), (a) => a.length > 0, "the alert");
    await t.ok("POST", "/events", { id: "ae-e", category: "C", text: "plain" });
    expect(ids(await t.ok("GET", "/events"))).toEqual(ids([{ id: "ae-e" }, alert]));
    expect(ids(await t.ok("GET", "/events?eventType=ALERT"))).toEqual([alert.id]);
    expect(ids(await t.ok("GET", "/events?eventType=EVENT"))).toEqual(["ae-e"]);
    expect(ids(await t.ok("GET", "/events?triggerIds=ae-t"))).toEqual([alert.id]);
    const one = await t.ok("GET", `/events/event/${alert.id}`);
    expect(one).toMatchObject({ id: alert.id, eventType: "ALERT", status: "OPEN" });
    expect(ids(await t.ok("GET", "/admin/events?eventType=ALERT", undefined, "ae,other"))).toEqual([alert.id]);
    // Deleting events by filter leaves alerts alone; they are deleted through the alert paths.
    expect((await t.ok("PUT", "/events/delete")).deleted).toBe(1);
    expect(ids(await t.ok("GET", "/events"))).toEqual([alert.id]);
  });

  it("GET /events/watch streams events and new alerts", async () => {
    const t = alertsClient(col, "aw");
    await t.ok("POST", "/triggers/trigger", {
      trigger: { id: "aw-t", name: "hot", enabled: true },
      conditions: [{ type: "THRESHOLD", dataId: "aw.temp", operator: "GT", threshold: 10 }],
    });
    await t.ok("POST", "/events", { id: "aw-first", category: "C", text: "before", ctime: Date.now() - 1000 });
    const watch = await openWatchStream(col, "/events/watch", "aw");
    try {
      expect((await watch.next()).id).toBe("aw-first");
      await t.ok("POST", "/data", [{ id: "aw.temp", value: 50, timestamp: Date.now() }]);
      const alert = await watch.next();
      expect(alert).toMatchObject({ eventType: "ALERT", status: "OPEN" });
      await t.ok("PUT", `/ack/${alert.id}`);
      await t.ok("POST", "/events", { id: "aw-second", category: "C", text: "after" });
      // The acknowledgement is no new event: the next item is the new event.
      expect((await watch.next()).id).toBe("aw-second");
    } finally {
      await watch.close();
    }
  });
});

describe("data-driven group triggers (GroupITest t01)", () => {
  it("create a member per data source, carry the group's definition, and are rebuilt after a condition change", async () => {
    const t = alertsClient(col, "ddg");
    const start = Date.now();
    const group = {
      id: "test-ddgroup-trigger",
      name: "test-ddgroup-trigger",
      type: "DATA_DRIVEN_GROUP",
      context: { contextName: "contextValue", contextName2: "contextValue2" },
      tags: { "test-ddgroup-tname": "test-ddgroup-tvalue" },
      autoDisable: false,
      autoResolve: false,
      severity: "LOW",
    };
    await t.ok("POST", "/triggers/groups", group);
    // Conditions through the trigger path, as the upstream test sets them.
    const conds = await t.ok("PUT", "/triggers/test-ddgroup-trigger/conditions/firing", [
      { triggerId: "test-ddgroup-trigger", triggerMode: "FIRING", type: "AVAILABILITY", dataId: "test-ddgroup-avail", operator: "NOT_UP" },
    ]);
    expect(conds).toHaveLength(1);
    await t.ok("PUT", "/triggers/groups/test-ddgroup-trigger", { ...group, enabled: true });
    expect(await t.ok("GET", "/triggers/test-ddgroup-trigger")).toMatchObject({ type: "DATA_DRIVEN_GROUP", enabled: true, severity: "LOW" });
    expect(await t.ok("GET", "/triggers/groups/test-ddgroup-trigger/members")).toEqual([]);

    for (const source of ["Source-1", "Source-2"]) {
      await t.ok("POST", "/data", [{ source, id: "test-ddgroup-avail", timestamp: Date.now(), value: "UP" }]);
    }
    const members = (await t.ok("GET", "/triggers/groups/test-ddgroup-trigger/members")).sort((a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1));
    expect(members.map((m: { id: string }) => m.id)).toEqual(["test-ddgroup-trigger_Source-1", "test-ddgroup-trigger_Source-2"]);
    for (const [i, m] of members.entries()) {
      expect(m).toMatchObject({
        name: "test-ddgroup-trigger",
        type: "MEMBER",
        memberOf: "test-ddgroup-trigger",
        source: `Source-${i + 1}`,
        enabled: true,
        context: { contextName: "contextValue", contextName2: "contextValue2" },
        tags: { "test-ddgroup-tname": "test-ddgroup-tvalue", source: `Source-${i + 1}` },
      });
    }
    // More data from a known source creates nothing more; each member fires on its own source's data.
    for (const source of ["Source-1", "Source-2"]) {
      await t.ok("POST", "/data", [{ source, id: "test-ddgroup-avail", timestamp: Date.now() + 1000, value: "DOWN" }]);
    }
    expect(await t.ok("GET", "/triggers/groups/test-ddgroup-trigger/members")).toHaveLength(2);
    const memberIds = "test-ddgroup-trigger_Source-1,test-ddgroup-trigger_Source-2";
    const alerts = await eventually(() => t.ok("GET", `/?startTime=${start}&triggerIds=${memberIds}`), (a) => a.length >= 2, "two alerts");
    expect(alerts).toHaveLength(2);

    // Disabling the group disables the members: no more alerts.
    await t.ok("PUT", "/triggers/groups/enabled?triggerIds=test-ddgroup-trigger&enabled=false");
    expect((await t.ok("GET", "/triggers/groups/test-ddgroup-trigger/members")).every((m: { enabled: boolean }) => !m.enabled)).toBe(true);
    await t.ok("POST", "/data", [{ source: "Source-1", id: "test-ddgroup-avail", timestamp: Date.now() + 2000, value: "DOWN" }]);
    expect(await t.ok("GET", `/?startTime=${start}&triggerIds=${memberIds}`)).toHaveLength(2);

    // New group conditions invalidate the data-driven members; data creates them again.
    const updated = await t.ok("PUT", "/triggers/groups/test-ddgroup-trigger/conditions/firing", {
      conditions: [{ triggerMode: "FIRING", type: "AVAILABILITY", dataId: "test-ddgroup-avail", operator: "DOWN" }],
    });
    expect(updated).toHaveLength(1);
    expect(await t.ok("GET", "/triggers/groups/test-ddgroup-trigger/members")).toEqual([]);
    await t.ok("POST", "/data", [{ source: "Source-3", id: "test-ddgroup-avail", timestamp: Date.now() + 3000, value: "UP" }]);
    const again = await t.ok("GET", "/triggers/groups/test-ddgroup-trigger/members");
    expect(again.map((m: { id: string }) => m.id)).toEqual(["test-ddgroup-trigger_Source-3"]);
    const full = await t.ok("GET", "/triggers/trigger/test-ddgroup-trigger_Source-3");
    expect(full.conditions).toMatchObject([{ type: "AVAILABILITY", dataId: "test-ddgroup-avail", operator: "DOWN" }]);
    await t.ok("DELETE", "/triggers/groups/test-ddgroup-trigger");
  });

  it("data without a source, or for a dataId no data-driven group reads, creates no member", async () => {
    const t = alertsClient(col, "ddg2");
    await t.ok("POST", "/triggers/groups", { id: "dd2", name: "dd2", type: "DATA_DRIVEN_GROUP", enabled: true });
    await t.ok("PUT", "/triggers/groups/dd2/conditions", { conditions: [{ type: "THRESHOLD", dataId: "dd2.x", operator: "GT", threshold: 1 }] });
    await t.ok("POST", "/data", [{ id: "dd2.x", timestamp: Date.now(), value: 5 }]);
    await t.ok("POST", "/data", [{ source: "S", id: "dd2.other", timestamp: Date.now(), value: 5 }]);
    expect(await t.ok("GET", "/triggers/groups/dd2/members")).toEqual([]);
  });
});

describe("group triggers on the trigger paths (the Python client)", () => {
  it("PUT /triggers/{groupId}/conditions sets the group's conditions and carries them to its members", async () => {
    const t = alertsClient(col, "gc");
    await t.ok("POST", "/triggers/groups", { id: "gc-g", name: "g" });
    await t.ok("PUT", "/triggers/groups/gc-g/conditions/firing", {
      conditions: [{ triggerMode: "FIRING", type: "THRESHOLD", dataId: "tok", operator: "LT", threshold: 5 }],
    });
    await t.ok("POST", "/triggers/groups/members", { groupId: "gc-g", memberId: "gc-m1", dataIdMap: { tok: "m1.metric" } });
    const set = await t.ok("PUT", "/triggers/gc-g/conditions/autoresolve", [
      { triggerMode: "AUTORESOLVE", type: "THRESHOLD", dataId: "tok", operator: "GT", threshold: 5 },
      { triggerMode: "AUTORESOLVE", type: "THRESHOLD", dataId: "tok", operator: "GTE", threshold: 9 },
    ]);
    expect(set).toHaveLength(2);
    expect(await t.ok("GET", "/triggers/gc-g/conditions")).toHaveLength(3);
    const member = await t.ok("GET", "/triggers/trigger/gc-m1");
    expect(member.conditions.filter((c: { triggerMode: string }) => c.triggerMode === "AUTORESOLVE").map((c: { dataId: string }) => c.dataId)).toEqual([
      "m1.metric",
      "m1.metric",
    ]);
  });

  it("a full-trigger update may not change the trigger's type (400); omitting it keeps it", async () => {
    const t = alertsClient(col, "ty");
    await t.ok("POST", "/triggers/trigger", { trigger: { id: "ty-1", name: "t" } });
    await expectError(await t.put("/triggers/trigger/ty-1", { trigger: { id: "ty-1", name: "t", type: "GROUP" } }), 400, /not allowed to update trigger type/);
    await expectError(await t.put("/triggers/ty-1", { name: "t", type: "DATA_DRIVEN_GROUP" }), 400, /type/);
    await t.ok("PUT", "/triggers/trigger/ty-1", { trigger: { name: "renamed" } });
    expect(await t.ok("GET", "/triggers/ty-1")).toMatchObject({ name: "renamed", type: "STANDARD" });
    await t.ok("POST", "/triggers/groups", { id: "ty-g", name: "g" });
    await expectError(await t.put("/triggers/trigger/ty-g", { trigger: { id: "ty-g", type: "STANDARD" } }), 400, /Current type: \[GROUP\]/);
    await t.ok("PUT", "/triggers/trigger/ty-g", { trigger: { id: "ty-g", name: "still a group", type: "GROUP" } });
  });
});

describe("dampenings with fields left out get Hawkular's defaults (STRICT, evalTrueSetting 1, evalTotalSetting 1)", () => {
  it("in full triggers (the Python client's test_full_trigger_creation)", async () => {
    const t = alertsClient(col, "dd");
    const full = await t.ok("POST", "/triggers/trigger", {
      trigger: { id: "id_1", name: "test_trigger" },
      dampenings: [
        { dampeningId: "damp_1", triggerMode: "FIRING", type: "STRICT" },
        { dampeningId: "damp_2", triggerMode: "AUTORESOLVE", type: "RELAXED_COUNT" },
      ],
      conditions: [
        { triggerMode: "AUTORESOLVE", type: "THRESHOLD", dataId: "did1", threshold: 5, operator: "LT" },
        { triggerMode: "AUTORESOLVE", type: "THRESHOLD", dataId: "did2", threshold: 5, operator: "GT" },
      ],
    });
    expect(full.dampenings).toMatchObject([
      { triggerMode: "FIRING", type: "STRICT", evalTrueSetting: 1, evalTotalSetting: 1 },
      { triggerMode: "AUTORESOLVE", type: "RELAXED_COUNT", evalTrueSetting: 1, evalTotalSetting: 1 },
    ]);
    expect(await t.ok("GET", "/triggers/id_1/dampenings")).toHaveLength(2);
    // A dampening with only a mode is STRICT(1); settings that are sent still obey the spec's bounds.
    await t.ok("POST", "/triggers/trigger", { trigger: { id: "id_2" }, dampenings: [{ triggerMode: "FIRING" }] });
    expect((await t.ok("GET", "/triggers/id_2/dampenings"))[0]).toMatchObject({ type: "STRICT", evalTrueSetting: 1, evalTotalSetting: 1 });
    await expectError(await t.post("/triggers/trigger", { trigger: { id: "id_3" }, dampenings: [{ type: "RELAXED_COUNT", evalTrueSetting: 2, evalTotalSetting: 2 }] }), 400);
    await expectError(await t.post("/triggers/trigger", { trigger: { id: "id_4" }, dampenings: [{ type: "STRICT_TIME" }] }), 400, /evalTimeSetting/);
  });

  it("on groups (the Python client's test_create_groups) and in POST /import", async () => {
    const t = alertsClient(col, "dg");
    await t.ok("POST", "/triggers/groups", { id: "a-group-trigger", name: "A Group Trigger", severity: "HIGH" });
    const d = await t.ok("POST", "/triggers/groups/a-group-trigger/dampenings", { triggerMode: "FIRING", type: "STRICT", triggerId: "a-group-trigger" });
    expect(d).toMatchObject({ type: "STRICT", evalTrueSetting: 1, evalTotalSetting: 1 });
    const updated = await t.ok("PUT", `/triggers/groups/a-group-trigger/dampenings/${d.dampeningId}`, {
      triggerMode: "FIRING",
      type: "STRICT_TIME",
      evalTimeSetting: 5,
      dampeningId: d.dampeningId,
    });
    expect(updated.type).toBe("STRICT_TIME");
    const imported = await t.ok("POST", "/import/all", {
      triggers: [{ trigger: { id: "imp-1", name: "i" }, dampenings: [{ triggerMode: "FIRING" }], conditions: [] }],
      actions: [],
    });
    expect(imported.triggers[0].dampenings[0]).toMatchObject({ type: "STRICT", evalTrueSetting: 1, evalTotalSetting: 1 });
  });
});
