import { describe, expect, it } from "vitest";
import {
  applyGroupUpdate,
  completeConditions,
  conditionsSchema,
  deriveMember,
  detachMember,
  distributeGroupConditions,
  GroupDefinitionError,
  orphanMember,
  unorphanMember,
} from "../../src/alerts/index.ts";
import { fullTrigger, TENANT, testEngine } from "./helpers.ts";

/** A group whose conditions use the tokens "cpu", "cpu-limit" and "ext". */
function group() {
  return fullTrigger({
    trigger: {
      id: "hosts-cpu",
      type: "GROUP",
      name: "Host CPU",
      enabled: true,
      severity: "HIGH",
      autoResolve: true,
      eventText: "CPU over limit",
      context: { owner: "ops" },
      tags: { kind: "cpu" },
    },
    conditions: [
      { type: "COMPARE", dataId: "cpu", operator: "GT", data2Id: "cpu-limit", data2Multiplier: 0.9 },
      { type: "EXTERNAL", dataId: "ext", alerterId: "ml", expression: "anomaly(ext) and trend(ext)" },
      { type: "THRESHOLD", triggerMode: "AUTORESOLVE", dataId: "cpu", operator: "LT", threshold: 10 },
    ],
    dampenings: [{ type: "STRICT", evalTrueSetting: 2 }],
  });
}

const hostA = { memberId: "host-a-cpu", dataIdMap: { cpu: "host-a.cpu", "cpu-limit": "host-a.cpu.limit", ext: "host-a.ml" } };

describe("deriving members from a group", () => {
  it("replaces every token by the member's dataId, in compare data2Id and inside external expressions", () => {
    const m = deriveMember(group(), hostA);
    expect(m.conditions.map((c) => [c.triggerMode, c.dataId, c.type === "COMPARE" ? c.data2Id : undefined])).toEqual([
      ["FIRING", "host-a.cpu", "host-a.cpu.limit"],
      ["FIRING", "host-a.ml", undefined],
      ["AUTORESOLVE", "host-a.cpu", undefined],
    ]);
    const ext = m.conditions[1]!;
    expect(ext.type === "EXTERNAL" && ext.expression).toBe("anomaly(host-a.ml) and trend(host-a.ml)");
  });

  it("gives the member its own ids, set positions and copies of the group's dampenings", () => {
    const m = deriveMember(group(), hostA);
    expect(m.conditions.map((c) => c.conditionId)).toEqual([
      `${TENANT}-host-a-cpu-FIRING-2-1`,
      `${TENANT}-host-a-cpu-FIRING-2-2`,
      `${TENANT}-host-a-cpu-AUTORESOLVE-1-1`,
    ]);
    expect(m.dampenings).toEqual([
      expect.objectContaining({ triggerId: "host-a-cpu", type: "STRICT", evalTrueSetting: 2, dampeningId: `${TENANT}-host-a-cpu-FIRING` }),
    ]);
  });

  it("the member is a MEMBER of the group with the group's settings, merged context and tags, and its dataIdMap", () => {
    const m = deriveMember(group(), { ...hostA, memberName: "Host A CPU", memberContext: { host: "a" }, memberTags: { kind: "cpu-a", dc: "1" } });
    expect(m.trigger).toMatchObject({
      id: "host-a-cpu",
      type: "MEMBER",
      memberOf: "hosts-cpu",
      name: "Host A CPU",
      enabled: true,
      severity: "HIGH",
      autoResolve: true,
      eventText: "CPU over limit",
      context: { owner: "ops", host: "a" },
      tags: { kind: "cpu-a", dc: "1" },
      dataIdMap: hostA.dataIdMap,
    });
  });

  it("member name defaults to the group's; member id is generated when absent", () => {
    const m = deriveMember(group(), { dataIdMap: hostA.dataIdMap }, () => "new-id");
    expect([m.trigger.id, m.trigger.name]).toEqual(["new-id", "Host CPU"]);
  });

  it("the dataIdMap must name exactly the group's tokens", () => {
    expect(() => deriveMember(group(), { dataIdMap: { cpu: "a", ext: "b" } })).toThrow(GroupDefinitionError);
    expect(() => deriveMember(group(), { dataIdMap: { ...hostA.dataIdMap, extra: "x" } })).toThrow(/exactly the dataId tokens/);
  });

  it("only group triggers have members", () => {
    const notGroup = { ...group(), trigger: { ...group().trigger, type: "STANDARD" as const } };
    expect(() => deriveMember(notGroup, hostA)).toThrow(/not a group trigger/);
  });

  it("members evaluate their concrete dataIds in the engine; the group itself does not", () => {
    const h = testEngine();
    const g = group();
    h.engine.loadTrigger(g);
    h.engine.loadTrigger(deriveMember(g, hostA));
    // both FIRING conditions (compare, external) must have evaluations: firingMatch ALL; STRICT(2)
    h.engine.sendData([h.datum("host-a.cpu", 95), h.datum("host-a.cpu.limit", 100), h.datum("host-a.ml", "spike")]);
    expect(h.alerts()).toHaveLength(0);
    h.engine.sendData([h.datum("host-a.cpu", 96), h.datum("host-a.cpu.limit", 100), h.datum("host-a.ml", "spike")]);
    expect(h.alerts().map((a) => [a.dataId, a.text, a.severity])).toEqual([["host-a-cpu", "CPU over limit", "HIGH"]]);
  });
});

describe("propagating group changes", () => {
  it("a group update overwrites managed fields and adds group context and tags without replacing the member's", () => {
    const m = deriveMember(group(), { ...hostA, memberContext: { owner: "team-a" } }).trigger;
    const updated = applyGroupUpdate(
      { ...group().trigger, severity: "LOW", enabled: false, context: { owner: "sre", escalation: "pager" }, tags: { tier: "1" } },
      m,
    );
    expect(updated).toMatchObject({
      severity: "LOW",
      enabled: false,
      context: { owner: "team-a", escalation: "pager" },
      tags: { kind: "cpu", tier: "1" },
      type: "MEMBER",
      id: "host-a-cpu",
      dataIdMap: hostA.dataIdMap,
    });
  });

  it("new group conditions reach each member through its stored dataIdMap, plus new mappings for new tokens", () => {
    const members = [deriveMember(group(), hostA).trigger];
    const newConditions = completeConditions(
      TENANT,
      "hosts-cpu",
      conditionsSchema.parse([
        { type: "THRESHOLD", dataId: "cpu", operator: "GT", threshold: 99 },
        { type: "THRESHOLD", dataId: "mem", operator: "GT", threshold: 90 },
      ]),
    );
    const [u] = distributeGroupConditions("FIRING", newConditions, members, { mem: { "host-a-cpu": "host-a.mem" } });
    expect(u!.conditions.map((c) => c.dataId)).toEqual(["host-a.cpu", "host-a.mem"]);
    expect(u!.trigger.dataIdMap).toMatchObject({ cpu: "host-a.cpu", mem: "host-a.mem" });
    expect(u!.conditions.every((c) => c.triggerId === "host-a-cpu" && c.triggerMode === "FIRING")).toBe(true);
  });

  it("a token with no mapping for some member is rejected", () => {
    const members = [deriveMember(group(), hostA).trigger];
    const conds = completeConditions(TENANT, "hosts-cpu", conditionsSchema.parse([{ type: "THRESHOLD", dataId: "disk", operator: "GT", threshold: 1 }]));
    expect(() => distributeGroupConditions("FIRING", conds, members)).toThrow(/Missing dataIdMap entry for dataId token \[disk\]/);
  });
});

describe("orphans", () => {
  it("an orphan keeps its definition and can be made a member again, rebuilt from the group", () => {
    const m = deriveMember(group(), hostA);
    const orphan = orphanMember(m.trigger);
    expect(orphan.type).toBe("ORPHAN");
    expect(() => orphanMember(orphan)).toThrow(GroupDefinitionError);

    const back = unorphanMember(group(), { ...orphan, name: "Renamed" }, { dataIdMap: { cpu: "b.cpu", "cpu-limit": "b.limit", ext: "b.ml" } });
    expect(back.trigger).toMatchObject({ id: "host-a-cpu", type: "MEMBER", name: "Renamed" });
    expect(back.conditions[0]!.dataId).toBe("b.cpu");
  });

  it("orphans evaluate like any trigger", () => {
    const h = testEngine();
    const m = deriveMember(group(), hostA);
    h.engine.loadTrigger({ ...m, trigger: orphanMember(m.trigger) });
    const round = () => h.engine.sendData([h.datum("host-a.ml", "x"), h.datum("host-a.cpu", 95), h.datum("host-a.cpu.limit", 100)]);
    round();
    round();
    expect(h.alerts()).toHaveLength(1);
  });

  it("a member kept when its group is deleted becomes STANDARD", () => {
    const t = detachMember(deriveMember(group(), hostA).trigger);
    expect(t.type).toBe("STANDARD");
    expect(t).not.toHaveProperty("memberOf");
  });
});
