import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AlertsClient, alertsClient, expectError, thresholdTrigger } from "./helpers.ts";

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector();
});
afterAll(async () => {
  await col.close();
});

/** A tenant with an action, a standalone trigger using it, and a group with one member. */
async function seed(client: AlertsClient) {
  await client.ok("POST", "/actions", { actionPlugin: "file", actionId: "f1", properties: { path: "/tmp/outpost-import.jsonl" } });
  await client.ok("POST", "/triggers/trigger", thresholdTrigger("std-1", "a", 1, { actions: [{ actionPlugin: "file", actionId: "f1" }] }));
  await client.ok("POST", "/triggers/trigger", {
    trigger: { id: "grp-1", type: "GROUP", name: "group" },
    conditions: [{ type: "THRESHOLD", dataId: "tok", operator: "GT", threshold: 3 }],
    dampenings: [{ type: "STRICT", evalTrueSetting: 2 }],
  });
  await client.ok("POST", "/triggers/groups/members", { groupId: "grp-1", memberId: "mem-1", memberTags: { host: "h1" }, dataIdMap: { tok: "h1.tok" } });
}

const triggerIds = (defs: { triggers: { trigger: { id: string } }[] }) => defs.triggers.map((t) => t.trigger.id).sort();

describe("export and import", () => {
  it("exports every trigger, members among them with their own conditions (as upstream), and action definitions", async () => {
    const src = alertsClient(col, "exp");
    await seed(src);
    const defs = await src.ok("GET", "/export");
    expect(triggerIds(defs)).toEqual(["grp-1", "mem-1", "std-1"]);
    const member = defs.triggers.find((t: { trigger: { id: string } }) => t.trigger.id === "mem-1");
    expect(member.trigger).toMatchObject({ type: "MEMBER", memberOf: "grp-1", dataIdMap: { tok: "h1.tok" } });
    expect(member.conditions[0].dataId).toBe("h1.tok");
    expect(defs.groupMembersInfo ?? []).toEqual([]);
    expect(defs.actions).toMatchObject([{ actionPlugin: "file", actionId: "f1" }]);
  });

  it("imports an export into an empty tenant, rebuilding members (strategy case-insensitive)", async () => {
    const src = alertsClient(col, "exp2");
    await seed(src);
    const defs = await src.ok("GET", "/export");
    const dst = alertsClient(col, "imp2");
    const imported = await dst.ok("POST", "/import/all", defs);
    expect(triggerIds(imported)).toEqual(["grp-1", "mem-1", "std-1"]);
    expect(imported.actions).toHaveLength(1);
    const member = await dst.ok("GET", "/triggers/trigger/mem-1");
    expect(member.trigger).toMatchObject({ tenantId: "imp2", type: "MEMBER", memberOf: "grp-1" });
    expect(member.conditions[0].dataId).toBe("h1.tok");
    expect(member.dampenings[0].evalTrueSetting).toBe(2);
    expect((await dst.ok("GET", "/triggers/std-1")).actions).toMatchObject([{ actionPlugin: "file", actionId: "f1", tenantId: "imp2" }]);
  });

  it("NEW imports only what does not exist; OLD only what exists; ALL overwrites; DELETE starts afresh", async () => {
    const t = alertsClient(col, "strat");
    await t.ok("POST", "/triggers", { id: "keep", name: "original" });
    await t.ok("POST", "/triggers", { id: "only-here" });
    const defs = {
      triggers: [
        { trigger: { id: "keep", name: "imported" } },
        { trigger: { id: "brand-new", name: "new one" } },
      ],
    };

    const onlyNew = await t.ok("POST", "/import/NEW", defs);
    expect(triggerIds(onlyNew)).toEqual(["brand-new"]);
    expect((await t.ok("GET", "/triggers/keep")).name).toBe("original");

    await t.ok("DELETE", "/triggers/brand-new");
    const onlyOld = await t.ok("POST", "/import/OLD", defs);
    expect(triggerIds(onlyOld)).toEqual(["keep"]);
    expect((await t.ok("GET", "/triggers/keep")).name).toBe("imported");
    await expectError(await t.get("/triggers/brand-new"), 404);

    await t.ok("PUT", "/triggers/keep", { name: "changed again" });
    const all = await t.ok("POST", "/import/ALL", defs);
    expect(triggerIds(all)).toEqual(["brand-new", "keep"]);
    expect((await t.ok("GET", "/triggers/keep")).name).toBe("imported");
    expect((await t.get("/triggers/only-here")).status).toBe(200);

    const fresh = await t.ok("POST", "/import/DELETE", { triggers: [{ trigger: { id: "sole" } }] });
    expect(triggerIds(fresh)).toEqual(["sole"]);
    expect((await t.ok("GET", "/triggers")).map((x: { id: string }) => x.id)).toEqual(["sole"]);
  });

  it("validates everything before writing anything", async () => {
    const t = alertsClient(col, "valid");
    await t.ok("POST", "/triggers", { id: "untouched", name: "before" });
    const bad = {
      triggers: [
        { trigger: { id: "untouched", name: "after" } },
        { trigger: { id: "linked", actions: [{ actionPlugin: "webhook", actionId: "nowhere" }] } },
      ],
    };
    await expectError(await t.post("/import/ALL", bad), 400, /nowhere/);
    expect((await t.ok("GET", "/triggers/untouched")).name).toBe("before");
    await expectError(await t.post("/import/ALL", { actions: [{ actionPlugin: "file", actionId: "x", properties: { path: "relative" } }] }), 400);
    await expectError(await t.post("/import/ALL", { groupMembersInfo: [{ groupId: "missing", dataIdMap: {} }] }), 400, /missing/);
    await expectError(await t.post("/import/ALL", { triggers: [{ trigger: { id: "d" }, dampenings: [{ type: "STRICT", evalTrueSetting: 0 }] }] }), 400);
    await expectError(await t.post("/import/SOME", {}), 400, /strategy/);
    await expectError(await t.post("/import/ALL", "not an object"), 400);
    expect(await t.ok("GET", "/export")).toMatchObject({ triggers: [{ trigger: { id: "untouched", name: "before" } }] });
  });
});
