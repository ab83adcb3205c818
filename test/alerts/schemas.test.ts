import { describe, expect, it } from "vitest";
import { describeIssues } from "../../src/http/validate.ts";
import {
  completeConditions,
  completeData,
  completeDampening,
  completeEvent,
  completeFullTrigger,
  completeTrigger,
  conditionSchema,
  conditionsSchema,
  dampeningSchema,
  dataSchema,
  eventSchema,
  externalEventSchema,
  fullTriggerSchema,
  parseTriggerMode,
  triggerSchema,
} from "../../src/alerts/index.ts";

function errorOf(schema: { safeParse(v: unknown): { success: boolean; error?: unknown } }, value: unknown): string {
  const r = schema.safeParse(value);
  expect(r.success).toBe(false);
  return describeIssues(r.error as Parameters<typeof describeIssues>[0], "input");
}

describe("trigger schema", () => {
  it("fills the spec's defaults (the type when the trigger is completed: an update keeps the stored one)", () => {
    expect(triggerSchema.parse({ name: "n" }).type).toBeUndefined();
    expect(completeTrigger(triggerSchema.parse({ name: "n" }), "t").type).toBe("STANDARD");
    expect(triggerSchema.parse({ name: "n" })).toMatchObject({
      eventType: "ALERT",
      severity: "MEDIUM",
      autoDisable: false,
      autoEnable: false,
      autoResolve: false,
      autoResolveAlerts: false,
      autoResolveMatch: "ALL",
      firingMatch: "ALL",
      enabled: false,
    });
  });

  it("reads nulls as absent and accepts Jackson-style scalars", () => {
    const t = triggerSchema.parse({ description: null, enabled: "true", severity: null });
    expect(t.enabled).toBe(true);
    expect(t.severity).toBe("MEDIUM");
    expect(t.description).toBeUndefined();
  });

  it("rejects empty tag names and empty tag values", () => {
    expect(errorOf(triggerSchema, { tags: { "": "x" } })).toContain("tag names must not be empty");
    expect(errorOf(triggerSchema, { tags: { a: "" } })).toContain("tag a has an empty value");
  });

  it("takes enum values in upper case only, as Hawkular's reader does", () => {
    expect(errorOf(triggerSchema, { severity: "high" })).toContain("severity");
    expect(errorOf(triggerSchema, { firingMatch: "SOME" })).toContain("firingMatch");
  });

  it("a full trigger gets the tenant, a generated id when absent, and ids for dampenings and conditions", () => {
    const parsed = fullTriggerSchema.parse({
      trigger: { name: "no id" },
      dampenings: [{ type: "STRICT", evalTrueSetting: 2 }],
      conditions: [
        { type: "threshold", dataId: "a", operator: "GT", threshold: 1 },
        { type: "THRESHOLD", dataId: "b", operator: "GT", threshold: 1 },
        { type: "THRESHOLD", triggerMode: "AUTORESOLVE", dataId: "a", operator: "LT", threshold: 1 },
      ],
    });
    const ft = completeFullTrigger(parsed, "tnt", () => "gen-1");
    expect(ft.trigger).toMatchObject({ tenantId: "tnt", id: "gen-1" });
    expect(ft.dampenings[0]!.dampeningId).toBe("tnt-gen-1-FIRING");
    expect(ft.conditions.map((c) => [c.conditionId, c.conditionSetSize, c.conditionSetIndex])).toEqual([
      ["tnt-gen-1-FIRING-2-1", 2, 1],
      ["tnt-gen-1-FIRING-2-2", 2, 2],
      ["tnt-gen-1-AUTORESOLVE-1-1", 1, 1],
    ]);
    expect(ft.conditions[0]!.displayString).toBe("a GT 1.00");
  });

  it("a full trigger needs its trigger and at most one dampening per mode", () => {
    expect(errorOf(fullTriggerSchema, { conditions: [] })).toContain("trigger");
    const msg = errorOf(fullTriggerSchema, {
      trigger: {},
      dampenings: [
        { type: "STRICT", evalTrueSetting: 1 },
        { type: "STRICT", evalTrueSetting: 2 },
      ],
    });
    expect(msg).toContain("more than one dampening for mode FIRING");
  });
});

describe("dampening schema: the spec's bounds", () => {
  it.each([
    [{ type: "STRICT", evalTrueSetting: 0 }, "evalTrueSetting: must be at least 1"],
    [{ type: "RELAXED_COUNT", evalTrueSetting: 3, evalTotalSetting: 3 }, "evalTotalSetting: must be greater than evalTrueSetting"],
    [{ type: "RELAXED_TIME", evalTrueSetting: 2, evalTimeSetting: 0 }, "evalTimeSetting: must be greater than 0"],
    [{ type: "STRICT_TIME", evalTimeSetting: 0 }, "evalTimeSetting: must be greater than 0"],
    [{ type: "STRICT_TIMEOUT" }, "evalTimeSetting: must be greater than 0"],
    [{ type: "SOMETIMES", evalTrueSetting: 1 }, "type"],
    [{ type: "STRICT", evalTrueSetting: 1.5 }, "evalTrueSetting: must be an integer"],
  ])("rejects %j", (input, message) => {
    expect(errorOf(dampeningSchema, input)).toContain(message);
  });

  it("keeps only the settings each type uses", () => {
    const all = { evalTrueSetting: 3, evalTotalSetting: 5, evalTimeSetting: 1000 };
    const clean = (type: string) => {
      const d = dampeningSchema.parse({ type, ...all });
      return [d.evalTrueSetting, d.evalTotalSetting, d.evalTimeSetting];
    };
    expect(clean("STRICT")).toEqual([3, 3, 0]);
    expect(clean("RELAXED_COUNT")).toEqual([3, 5, 0]);
    expect(clean("RELAXED_TIME")).toEqual([3, 0, 1000]);
    expect(clean("STRICT_TIME")).toEqual([0, 0, 1000]);
    expect(clean("STRICT_TIMEOUT")).toEqual([0, 0, 1000]);
  });

  it("completes with the composed id <tenant>-<trigger>-<MODE>", () => {
    const d = completeDampening("tn", "trg", dampeningSchema.parse({ type: "STRICT", evalTrueSetting: 1, triggerMode: "AUTORESOLVE" }));
    expect(d.dampeningId).toBe("tn-trg-AUTORESOLVE");
  });
});

describe("condition schema", () => {
  it("reads the type in any case and defaults triggerMode to FIRING", () => {
    const c = conditionSchema.parse({ type: "availability", dataId: "up", operator: "DOWN" });
    expect(c).toMatchObject({ type: "AVAILABILITY", triggerMode: "FIRING" });
  });

  it("fills type defaults: compare multiplier 1, ignoreCase false, inRange false, rate INCREASING per MINUTE, Nelson all rules and 50", () => {
    const [cmp, str, rng, rate, nel] = conditionsSchema.parse([
      { type: "COMPARE", dataId: "a", operator: "LT", data2Id: "b" },
      { type: "STRING", dataId: "s", operator: "EQUAL", pattern: "x" },
      { type: "RANGE", dataId: "r", operatorLow: "INCLUSIVE", operatorHigh: "INCLUSIVE", thresholdLow: 1, thresholdHigh: 2 },
      { type: "RATE", dataId: "c", operator: "GT", threshold: 1 },
      { type: "NELSON", dataId: "n", activeRules: [] },
    ]);
    expect(cmp).toMatchObject({ data2Multiplier: 1 });
    expect(str).toMatchObject({ ignoreCase: false });
    expect(rng).toMatchObject({ inRange: false });
    expect(rate).toMatchObject({ direction: "INCREASING", period: "MINUTE" });
    expect(nel).toMatchObject({ sampleSize: 50, activeRules: ["Rule1", "Rule2", "Rule3", "Rule4", "Rule5", "Rule6", "Rule7", "Rule8"] });
  });

  it.each([
    [{ type: "THRESHOLD", operator: "GT", threshold: 1 }, "dataId"],
    [{ type: "THRESHOLD", dataId: "x", operator: "ABOVE", threshold: 1 }, "operator"],
    [{ type: "THRESHOLD", dataId: "x", operator: "GT", threshold: "high" }, "threshold"],
    [{ type: "STRING", dataId: "x", operator: "MATCH", pattern: "(" }, "pattern: invalid regular expression"],
    [{ type: "RATE", dataId: "x", operator: "GT", threshold: -1 }, "threshold: must be at least 0"],
    [{ type: "MISSING", dataId: "x", interval: 0 }, "interval: must be at least 1 ms"],
    [{ type: "NELSON", dataId: "x", sampleSize: 0 }, "sampleSize: must be at least 1"],
    [{ type: "NELSON", dataId: "x", activeRules: ["Rule9"] }, "activeRules"],
    [{ type: "TELEPATHY", dataId: "x" }, "type"],
    [{ dataId: "x" }, "type"],
  ])("rejects %j", (input, message) => {
    expect(errorOf(conditionSchema, input)).toContain(message);
  });

  it("accepts an invalid event expression: it evaluates to false instead", () => {
    expect(conditionSchema.safeParse({ type: "EVENT", dataId: "e", expression: "nonsense" }).success).toBe(true);
  });

  it("conditions for one mode all take that mode", () => {
    const cs = completeConditions("t", "x", conditionsSchema.parse([{ type: "THRESHOLD", dataId: "a", operator: "GT", threshold: 1 }]), "AUTORESOLVE");
    expect(cs[0]).toMatchObject({ triggerMode: "AUTORESOLVE", conditionId: "t-x-AUTORESOLVE-1-1" });
  });
});

describe("data and event schemas", () => {
  it("data need an id and a value; numbers become strings; timestamp defaults to now", () => {
    const d = completeData(dataSchema.parse({ id: "x", value: 3.5 }), "tn", 777);
    expect(d).toEqual({ tenantId: "tn", id: "x", value: "3.5", timestamp: 777 });
    expect(errorOf(dataSchema, { value: "1" })).toContain("id");
    expect(errorOf(dataSchema, { id: "x" })).toContain("value");
  });

  it("API events need id, category and text; external events only an id", () => {
    expect(errorOf(eventSchema, { id: "e", text: "t" })).toContain("category");
    expect(errorOf(eventSchema, { id: "", category: "c", text: "t" })).toContain("id: must not be empty");
    const e = completeEvent(externalEventSchema.parse({ id: "e", dataId: "d" }), "tn", 5);
    expect(e).toEqual({ eventType: "EVENT", tenantId: "tn", id: "e", ctime: 5, dataId: "d", dataSource: "_none_", category: "", text: "" });
  });

  it("trigger modes in paths are case-insensitive", () => {
    expect(parseTriggerMode("autoresolve")).toBe("AUTORESOLVE");
    expect(parseTriggerMode("Firing")).toBe("FIRING");
    expect(parseTriggerMode("sleeping")).toBeUndefined();
  });
});
