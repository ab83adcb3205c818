import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AlertsClient, alertsClient, expectError, nextTimestamp } from "./helpers.ts";

let col: TestCollector;
let api: AlertsClient;
beforeAll(async () => {
  col = await startTestCollector();
  api = alertsClient(col);
});
afterAll(async () => {
  await col.close();
});

/** A group with one FIRING condition on token `load` and a STRICT(1) dampening, plus two members. */
async function groupWithMembers(groupId: string, tags: Record<string, string> = { kind: "load" }) {
  await api.ok("POST", "/triggers/groups", { id: groupId, name: `${groupId} group`, enabled: true, tags, severity: "HIGH" });
  await api.ok("PUT", `/triggers/groups/${groupId}/conditions`, {
    conditions: [{ type: "THRESHOLD", dataId: "load", operator: "GT", threshold: 5 }],
  });
  await api.ok("POST", `/triggers/groups/${groupId}/dampenings`, { type: "STRICT", evalTrueSetting: 1 });
  for (const host of ["h1", "h2"]) {
    await api.ok("POST", "/triggers/groups/members", {
      groupId,
      memberId: `${groupId}-${host}`,
      memberName: `${host} load`,
      memberTags: { host },
      memberContext: { host },
      dataIdMap: { load: `${host}.${groupId}.load` },
    });
  }
}

describe("group triggers and members", () => {
  it("creates a group and members whose conditions use their own dataIds", async () => {
    await groupWithMembers("g1");
    const group = await api.ok("GET", "/triggers/g1");
    expect(group.type).toBe("GROUP");
    const member = await api.ok("GET", "/triggers/trigger/g1-h1");
    expect(member.trigger).toMatchObject({ type: "MEMBER", memberOf: "g1", name: "h1 load", enabled: true, severity: "HIGH" });
    expect(member.trigger.tags).toEqual({ kind: "load", host: "h1" });
    expect(member.trigger.dataIdMap).toEqual({ load: "h1.g1.load" });
    expect(member.conditions).toMatchObject([{ dataId: "h1.g1.load", triggerId: "g1-h1", conditionId: "t1-g1-h1-FIRING-1-1" }]);
    expect(member.dampenings).toMatchObject([{ dampeningId: "t1-g1-h1-FIRING", type: "STRICT" }]);
    const members = await api.ok("GET", "/triggers/groups/g1/members");
    expect(members.map((m: { id: string }) => m.id).sort()).toEqual(["g1-h1", "g1-h2"]);
  });

  it("fires a member on its own data, and never the group", async () => {
    await groupWithMembers("g2");
    await api.ok("POST", "/data", [{ id: "h2.g2.load", timestamp: nextTimestamp(), value: 9 }]);
    const alerts = await api.ok("GET", "/?triggerIds=g2,g2-h1,g2-h2");
    expect(alerts.map((a: { trigger: { id: string } }) => a.trigger.id)).toEqual(["g2-h2"]);
    expect(alerts[0].severity).toBe("HIGH");
  });

  it("validates member creation: missing groupId, unknown group, wrong dataIdMap, existing id", async () => {
    await groupWithMembers("g3");
    await expectError(await api.post("/triggers/groups/members", { dataIdMap: {} }), 400, /groupId/);
    await expectError(await api.post("/triggers/groups/members", { groupId: "nope", dataIdMap: {} }), 404);
    await expectError(await api.post("/triggers/groups/members", { groupId: "g3", dataIdMap: { other: "x" } }), 400, /dataIdMap/);
    await expectError(await api.post("/triggers/groups/members", { groupId: "g3", memberId: "g3-h1", dataIdMap: { load: "x" } }), 400, /exists/);
    await expectError(await api.post("/triggers/groups/members", { groupId: "g3-h1", dataIdMap: {} }), 400, /not a group/);
    await expectError(
      await api.post("/triggers/groups/members", { groupId: "g3", memberTags: { "": "x" }, dataIdMap: { load: "x" } }),
      400,
      /tag names/,
    );
  });

  it("propagates group updates, conditions and dampenings to members, not to orphans", async () => {
    await groupWithMembers("g4");
    // orphan h2 with the first version's POST
    expect((await api.post("/triggers/groups/members/g4-h2/orphan")).status).toBe(200);
    expect((await api.ok("GET", "/triggers/g4-h2")).type).toBe("ORPHAN");

    await api.ok("PUT", "/triggers/groups/g4", { name: "g4 renamed", severity: "CRITICAL", enabled: true, tags: { kind: "load", extra: "yes" } });
    const h1 = await api.ok("GET", "/triggers/g4-h1");
    expect(h1).toMatchObject({ severity: "CRITICAL", tags: { kind: "load", extra: "yes", host: "h1" } });
    expect((await api.ok("GET", "/triggers/g4-h2")).severity).toBe("HIGH");

    const conds = await api.ok("PUT", "/triggers/groups/g4/conditions/FIRING", {
      conditions: [
        { type: "THRESHOLD", dataId: "load", operator: "GT", threshold: 50 },
        { type: "THRESHOLD", dataId: "mem", operator: "GT", threshold: 90 },
      ],
      dataIdMemberMap: { mem: { "g4-h1": "h1.mem" } },
    });
    expect(conds).toHaveLength(2);
    const h1Full = await api.ok("GET", "/triggers/trigger/g4-h1");
    expect(h1Full.conditions.map((c: { dataId: string }) => c.dataId)).toEqual(["h1.g4.load", "h1.mem"]);
    expect(h1Full.trigger.dataIdMap).toEqual({ load: "h1.g4.load", mem: "h1.mem" });
    // the orphan kept its own single condition
    expect((await api.ok("GET", "/triggers/g4-h2/conditions")).length).toBe(1);

    await api.ok("PUT", "/triggers/groups/g4/dampenings/t1-g4-FIRING", { type: "RELAXED_COUNT", evalTrueSetting: 2, evalTotalSetting: 4 });
    expect(await api.ok("GET", "/triggers/g4-h1/dampenings")).toMatchObject([{ dampeningId: "t1-g4-h1-FIRING", type: "RELAXED_COUNT" }]);
    expect(await api.ok("GET", "/triggers/g4-h2/dampenings")).toMatchObject([{ type: "STRICT" }]);
    await api.ok("POST", "/triggers/groups/g4/dampenings", { type: "STRICT", evalTrueSetting: 1, triggerMode: "AUTORESOLVE" });
    expect(await api.ok("GET", "/triggers/g4-h1/dampenings")).toHaveLength(2);
    await api.ok("DELETE", "/triggers/groups/g4/dampenings/t1-g4-AUTORESOLVE");
    expect(await api.ok("GET", "/triggers/g4-h1/dampenings")).toHaveLength(1);

    // a token without a mapping for some member is a 400, and nothing changes
    await expectError(
      await api.put("/triggers/groups/g4/conditions", { conditions: [{ type: "THRESHOLD", dataId: "disk", operator: "GT", threshold: 1 }] }),
      400,
      /disk/,
    );
    expect((await api.ok("GET", "/triggers/g4-h1/conditions")).length).toBe(2);
  });

  it("includes orphans only when asked; unorphans with PUT; members cannot be edited directly", async () => {
    await groupWithMembers("g5");
    await api.ok("PUT", "/triggers/groups/members/g5-h1/orphan");
    expect((await api.ok("GET", "/triggers/groups/g5/members")).map((m: { id: string }) => m.id)).toEqual(["g5-h2"]);
    expect((await api.ok("GET", "/triggers/groups/g5/members?includeOrphans=true")).length).toBe(2);
    await expectError(await api.put("/triggers/groups/members/g5-h1/orphan"), 400, /already an orphan/);

    // an orphan may be edited on its own; a member may not
    await api.ok("PUT", "/triggers/g5-h1", { name: "standalone now", enabled: true });
    await expectError(await api.put("/triggers/g5-h2", { name: "x" }), 400, /via the group/);
    await expectError(await api.put("/triggers/g5-h2/conditions", []), 400, /via the group/);
    await expectError(await api.post("/triggers/g5-h2/dampenings", { type: "STRICT", evalTrueSetting: 1 }), 400, /via the group/);

    const back = await api.ok("PUT", "/triggers/groups/members/g5-h1/unorphan", { memberTags: { host: "h1", again: "yes" }, dataIdMap: { load: "h1.new" } });
    expect(back).toMatchObject({ id: "g5-h1", type: "MEMBER", tags: { kind: "load", host: "h1", again: "yes" } });
    expect((await api.ok("GET", "/triggers/g5-h1/conditions"))[0].dataId).toBe("h1.new");
    await expectError(await api.put("/triggers/groups/members/g5-h1/unorphan", { dataIdMap: { load: "x" } }), 400, /not an orphan/);
    // first version: POST
    expect((await api.post("/triggers/groups/members/g5-h1/orphan")).status).toBe(200);
    expect((await api.post("/triggers/groups/members/g5-h1/unorphan", { dataIdMap: { load: "h1.again" } })).status).toBe(200);
    await expectError(await api.put("/triggers/groups/members/nope/orphan"), 404);
  });

  it("enables groups with their members; group paths refuse other triggers and vice versa", async () => {
    await groupWithMembers("g6");
    await api.ok("PUT", "/triggers/groups/enabled?triggerIds=g6&enabled=false");
    expect((await api.ok("GET", "/triggers/g6")).enabled).toBe(false);
    expect((await api.ok("GET", "/triggers/g6-h1")).enabled).toBe(false);
    await api.ok("PUT", "/triggers/groups/enabled?triggerIds=g6&enabled=true");
    expect((await api.ok("GET", "/triggers/g6-h2")).enabled).toBe(true);

    await expectError(await api.put("/triggers/enabled?triggerIds=g6&enabled=true"), 400, /group trigger/);
    await expectError(await api.put("/triggers/groups/enabled?triggerIds=g6-h1&enabled=true"), 400, /not a group/);
    await expectError(await api.del("/triggers/g6"), 400, /group trigger/);
    await expectError(await api.put("/triggers/g6", { name: "x" }), 400, /group trigger/);
    // On a group, /triggers/{id}/conditions is the group's own conditions path (tested below).
    await expectError(await api.put("/triggers/groups/g6-h1", { name: "x" }), 400, /not a group/);
    expect(await api.ok("GET", "/triggers/groups/nope/members")).toEqual([]);
  });

  it("replaces a whole group with PUT /triggers/trigger/{groupId}, carried to members", async () => {
    await groupWithMembers("g7");
    await api.ok("PUT", "/triggers/trigger/g7", {
      trigger: { name: "g7 full", enabled: true, autoResolve: true },
      conditions: [
        { type: "THRESHOLD", dataId: "load", operator: "GT", threshold: 7 },
        { type: "THRESHOLD", dataId: "load", operator: "LT", threshold: 2, triggerMode: "AUTORESOLVE" },
      ],
      dampenings: [],
    });
    const m = await api.ok("GET", "/triggers/trigger/g7-h2");
    expect(m.trigger.autoResolve).toBe(true);
    expect(m.conditions.map((c: { triggerMode: string; dataId: string }) => `${c.triggerMode}:${c.dataId}`)).toEqual([
      "FIRING:h2.g7.load",
      "AUTORESOLVE:h2.g7.load",
    ]);
    expect(m.dampenings ?? []).toEqual([]);
  });

  it("deletes a group: members removed, or kept as standalone triggers", async () => {
    await groupWithMembers("g8");
    await api.ok("PUT", "/triggers/groups/members/g8-h2/orphan");
    expect((await api.del("/triggers/groups/g8?keepNonOrphans=true")).status).toBe(200);
    await expectError(await api.get("/triggers/g8"), 404);
    const kept = await api.ok("GET", "/triggers/g8-h1");
    expect(kept.type).toBe("STANDARD");
    expect(kept.memberOf).toBeUndefined();
    await expectError(await api.get("/triggers/g8-h2"), 404);

    await groupWithMembers("g9");
    expect((await api.del("/triggers/groups/g9")).status).toBe(200);
    await expectError(await api.get("/triggers/g9-h1"), 404);
    await expectError(await api.del("/triggers/groups/g9"), 404);
    await expectError(await api.del("/triggers/groups/g8-h1"), 400, /not a group/);
  });

  it("a member deleted on its own stops firing; the others go on", async () => {
    await groupWithMembers("g10");
    await api.ok("DELETE", "/triggers/g10-h1");
    await api.ok("POST", "/data", [
      { id: "h1.g10.load", timestamp: nextTimestamp(), value: 100 },
      { id: "h2.g10.load", timestamp: nextTimestamp(), value: 100 },
    ]);
    const alerts = await api.ok("GET", "/?triggerIds=g10-h1,g10-h2");
    expect(alerts.map((a: { trigger: { id: string } }) => a.trigger.id)).toEqual(["g10-h2"]);
  });
});
