import { describe, expect, it } from "vitest";
import { availabilityMatches, parseAvailability } from "../../src/alerts/conditions/availability.ts";
import { compareMatches } from "../../src/alerts/conditions/compare.ts";
import { missingMatches } from "../../src/alerts/conditions/missing.ts";
import { rangeMatches } from "../../src/alerts/conditions/range.ts";
import { rateMatches, rateOf } from "../../src/alerts/conditions/rate.ts";
import { stringMatches } from "../../src/alerts/conditions/string.ts";
import { thresholdMatches } from "../../src/alerts/conditions/threshold.ts";
import type { AvailabilityOperator, CompareOperator, StringOperator } from "../../src/alerts/index.ts";
import { fullTrigger, TENANT, testEngine, threshold } from "./helpers.ts";

describe("availability condition", () => {
  const table: [AvailabilityOperator, string, boolean][] = [
    ["UP", "UP", true],
    ["UP", "DOWN", false],
    ["UP", "UNAVAILABLE", false],
    ["DOWN", "DOWN", true],
    ["DOWN", "UP", false],
    ["DOWN", "UNAVAILABLE", false],
    ["NOT_UP", "DOWN", true],
    ["NOT_UP", "UNAVAILABLE", true],
    ["NOT_UP", "UP", false],
  ];
  it.each(table)("%s on %s is %s", (op, value, expected) => {
    const v = parseAvailability(value)!;
    expect(availabilityMatches(op, v)).toBe(expected);
  });

  it("reads the metrics spelling (up, down, unknown) too, and nothing else", () => {
    expect(parseAvailability("up")).toBe("UP");
    expect(parseAvailability("down")).toBe("DOWN");
    expect(parseAvailability("unknown")).toBe("UNAVAILABLE");
    expect(parseAvailability("sideways")).toBeUndefined();
    expect(parseAvailability(1)).toBeUndefined();
  });
});

describe("threshold condition", () => {
  const cases: [CompareOperator, number, boolean][] = [
    ["LT", 9, true],
    ["LT", 10, false],
    ["LTE", 10, true],
    ["LTE", 11, false],
    ["GT", 11, true],
    ["GT", 10, false],
    ["GTE", 10, true],
    ["GTE", 9, false],
  ];
  it.each(cases)("value %s %s 10 → %s", (op, value, expected) => {
    expect(thresholdMatches(op, 10, value)).toBe(expected);
  });
});

describe("compare condition: dataId op multiplier × data2Id", () => {
  const cases: [CompareOperator, number, number, boolean][] = [
    ["LT", 4, 5, true],
    ["GT", 6, 5, true],
    ["LTE", 5, 5, true],
    ["GTE", 5, 5, true],
    ["LT", 5, 5, false],
    ["GT", 5, 5, false],
  ];
  it.each(cases)("%s: %s vs %s → %s", (op, a, b, expected) => {
    expect(compareMatches(op, 1, a, b)).toBe(expected);
  });

  it("applies the multiplier to the second value", () => {
    expect(compareMatches("GT", 0.5, 6, 10)).toBe(true); // 6 > 5
    expect(compareMatches("GT", 0.5, 4, 10)).toBe(false);
  });

  it("uses the latest value of each dataId, held across batches", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "cmp", enabled: true },
        conditions: [{ type: "COMPARE", dataId: "used", operator: "GT", data2Id: "total", data2Multiplier: 0.9 }],
      }),
    );
    h.engine.sendData([h.datum("used", 95)]); // no value of total yet: no evaluation
    expect(h.alerts()).toHaveLength(0);
    h.engine.sendData([h.datum("total", 100)]); // 95 > 90 with the held value of "used"
    expect(h.alerts()).toHaveLength(1);
    const ev = h.alerts()[0]!.evalSets![0]![0]!;
    expect(ev).toMatchObject({ type: "COMPARE", value1: 95, value2: 100 });
    h.engine.sendData([h.datum("total", 200)]); // 95 > 180 is false
    expect(h.alerts()).toHaveLength(1);
  });

  it("evaluates once when both dataIds arrive in one batch, with both new values", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "cmp", enabled: true },
        conditions: [{ type: "COMPARE", dataId: "a", operator: "GT", data2Id: "b" }],
      }),
    );
    h.engine.sendData([h.datum("a", 1), h.datum("b", 2)]);
    h.engine.sendData([h.datum("a", 5), h.datum("b", 3)]);
    expect(h.engine.stats().evaluations).toBe(2);
    expect(h.alerts()).toHaveLength(1);
    expect(h.alerts()[0]!.evalSets![0]![0]).toMatchObject({ value1: 5, value2: 3 });
  });
});

describe("string condition", () => {
  const cases: [StringOperator, string, string, boolean, boolean][] = [
    ["EQUAL", "abc", "abc", false, true],
    ["EQUAL", "abc", "ABC", false, false],
    ["EQUAL", "abc", "ABC", true, true],
    ["NOT_EQUAL", "abc", "abd", false, true],
    ["NOT_EQUAL", "abc", "ABC", true, false],
    ["STARTS_WITH", "ab", "abc", false, true],
    ["STARTS_WITH", "AB", "abc", false, false],
    ["STARTS_WITH", "AB", "abc", true, true],
    ["ENDS_WITH", "bc", "abc", false, true],
    ["ENDS_WITH", "BC", "abc", true, true],
    ["ENDS_WITH", "ab", "abc", false, false],
    ["CONTAINS", "b", "abc", false, true],
    ["CONTAINS", "B", "abc", false, false],
    ["CONTAINS", "B", "abc", true, true],
    ["MATCH", "a.c", "abc", false, true],
    ["MATCH", "b", "abc", false, false], // the whole value must match
    ["MATCH", "A.C", "abc", false, false],
    ["MATCH", "A.C", "abc", true, true],
    ["MATCH", "(", "(", false, false], // an invalid pattern matches nothing
  ];
  it.each(cases)("%s pattern %s on %s (ignoreCase %s) → %s", (operator, pattern, value, ignoreCase, expected) => {
    expect(stringMatches({ operator, pattern, ignoreCase }, value)).toBe(expected);
  });
});

describe("range condition", () => {
  const base = { thresholdLow: 10, thresholdHigh: 20 };
  it("INCLUSIVE bounds include the limits, EXCLUSIVE ones do not", () => {
    const incl = { ...base, operatorLow: "INCLUSIVE", operatorHigh: "INCLUSIVE", inRange: true } as const;
    const excl = { ...base, operatorLow: "EXCLUSIVE", operatorHigh: "EXCLUSIVE", inRange: true } as const;
    expect([10, 15, 20].map((v) => rangeMatches(incl, v))).toEqual([true, true, true]);
    expect([10, 15, 20].map((v) => rangeMatches(excl, v))).toEqual([false, true, false]);
    expect([9, 21].map((v) => rangeMatches(incl, v))).toEqual([false, false]);
  });

  it("mixes bound kinds per side", () => {
    const c = { ...base, operatorLow: "INCLUSIVE", operatorHigh: "EXCLUSIVE", inRange: true } as const;
    expect(rangeMatches(c, 10)).toBe(true);
    expect(rangeMatches(c, 20)).toBe(false);
  });

  it("with inRange false matches values outside the interval, on either side", () => {
    const c = { ...base, operatorLow: "INCLUSIVE", operatorHigh: "INCLUSIVE", inRange: false } as const;
    expect([5, 10, 15, 20, 25].map((v) => rangeMatches(c, v))).toEqual([true, false, false, false, true]);
  });
});

describe("rate condition", () => {
  it("is the value change per period: (v2 - v1) / ((t2 - t1) / period)", () => {
    expect(rateOf("INCREASING", "SECOND", 0, 10, 2000, 30)).toBe(10);
    expect(rateOf("INCREASING", "MINUTE", 0, 10, 30_000, 30)).toBe(40);
    expect(rateOf("INCREASING", "HOUR", 0, 0, 1_800_000, 5)).toBe(10);
    expect(rateOf("INCREASING", "DAY", 0, 0, 43_200_000, 5)).toBe(10);
    expect(rateOf("INCREASING", "WEEK", 0, 0, 302_400_000, 5)).toBe(10);
  });

  it("DECREASING measures falls; NA measures change either way; the rate is never negative", () => {
    expect(rateOf("DECREASING", "SECOND", 0, 30, 1000, 10)).toBe(20);
    expect(rateOf("NA", "SECOND", 0, 30, 1000, 10)).toBe(20);
    expect(rateOf("NA", "SECOND", 0, 10, 1000, 30)).toBe(20);
  });

  it("ignores a previous value on the wrong side (a counter reset)", () => {
    expect(rateOf("INCREASING", "SECOND", 0, 100, 1000, 5)).toBeUndefined();
    expect(rateOf("DECREASING", "SECOND", 0, 5, 1000, 100)).toBeUndefined();
  });

  it("needs time to move forward", () => {
    expect(rateOf("NA", "SECOND", 1000, 1, 1000, 2)).toBeUndefined();
  });

  it.each([
    ["LT", 4, true],
    ["LT", 5, false],
    ["LTE", 5, true],
    ["GT", 6, true],
    ["GT", 5, false],
    ["GTE", 5, true],
  ] as [CompareOperator, number, boolean][])("%s 5 with rate %s → %s", (op, rate, expected) => {
    expect(rateMatches(op, 5, rate)).toBe(expected);
  });

  it("in the engine: evaluates consecutive points, skips a counter reset without resetting dampening", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "r", enabled: true },
        conditions: [{ type: "RATE", dataId: "c", direction: "INCREASING", period: "SECOND", operator: "GT", threshold: 5 }],
        dampenings: [{ type: "STRICT", evalTrueSetting: 2 }],
      }),
    );
    // timestamps 1 s apart: rates 10, (reset: ignored), 10 → two true evaluations in a row
    h.engine.sendData([h.datum("c", 0, 1000)]);
    h.engine.sendData([h.datum("c", 10, 2000)]);
    expect(h.alerts()).toHaveLength(0);
    h.engine.sendData([h.datum("c", 1, 3000)]);
    h.engine.sendData([h.datum("c", 11, 4000)]);
    expect(h.alerts()).toHaveLength(1);
    const evals = h.alerts()[0]!.evalSets!.map((s) => s[0]!);
    expect(evals.map((e) => (e.type === "RATE" ? [e.previousValue, e.value, e.rate] : []))).toEqual([
      [0, 10, 10],
      [1, 11, 10],
    ]);
  });

  it("in the engine: a point older than the latest is not rated", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "r", enabled: true },
        conditions: [{ type: "RATE", dataId: "c", direction: "NA", period: "SECOND", operator: "GTE", threshold: 0 }],
      }),
    );
    h.engine.sendData([h.datum("c", 0, 5000)]);
    h.engine.sendData([h.datum("c", 10, 4000)]);
    expect(h.engine.stats().evaluations).toBe(0);
  });
});

describe("missing condition", () => {
  it("is true once the interval has passed without arrivals", () => {
    expect(missingMatches(1000, 0, 999)).toBe(false);
    expect(missingMatches(1000, 0, 1000)).toBe(true);
  });

  it("fires from its timer, counted from enablement, with no data at all", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({ trigger: { id: "m", enabled: true }, conditions: [{ type: "MISSING", dataId: "hb", interval: 60_000 }] }),
    );
    h.clock.advance(59_999);
    expect(h.alerts()).toHaveLength(0);
    h.clock.advance(1);
    expect(h.alerts()).toHaveLength(1);
    const ev = h.alerts()[0]!.evalSets![0]![0]!;
    expect(ev).toMatchObject({ type: "MISSING", time: 1_060_000, previousTime: 1_000_000 });
  });

  it("data or events that arrive restart the interval", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({ trigger: { id: "m", enabled: true }, conditions: [{ type: "MISSING", dataId: "hb", interval: 10_000 }] }),
    );
    h.clock.advance(8_000);
    h.engine.sendData([h.datum("hb", "alive")]);
    h.clock.advance(8_000);
    h.engine.sendEvents([{ eventType: "EVENT", tenantId: TENANT, id: "e1", ctime: 1, dataId: "hb", category: "c", text: "t" }]);
    h.clock.advance(9_999);
    expect(h.alerts()).toHaveLength(0);
    h.clock.advance(1);
    expect(h.alerts()).toHaveLength(1);
  });

  it("keeps firing every interval while nothing arrives, with STRICT(1)", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({ trigger: { id: "m", enabled: true }, conditions: [{ type: "MISSING", dataId: "hb", interval: 1000 }] }),
    );
    h.clock.advance(3500);
    expect(h.alerts().map((a) => a.ctime)).toEqual([1_001_000, 1_002_000, 1_003_000]);
  });

  it("a disabled trigger has no missing timer running", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({ trigger: { id: "m", enabled: false }, conditions: [{ type: "MISSING", dataId: "hb", interval: 1000 }] }),
    );
    expect(h.clock.pending()).toBe(0);
    h.engine.setEnabled(TENANT, "m", true);
    expect(h.clock.pending()).toBe(1);
    h.engine.setEnabled(TENANT, "m", false);
    expect(h.clock.pending()).toBe(0);
  });
});

describe("external condition", () => {
  it("every evaluation counts as true, from data or from events", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "x", enabled: true },
        conditions: [{ type: "EXTERNAL", dataId: "ext", alerterId: "ml", expression: "anything at all" }],
      }),
    );
    h.engine.sendData([h.datum("ext", "whatever")]);
    h.engine.sendEvents([{ eventType: "EVENT", tenantId: TENANT, id: "e", ctime: 5, dataId: "ext", category: "c", text: "t" }]);
    expect(h.alerts()).toHaveLength(2);
    expect(h.alerts()[0]!.evalSets![0]![0]).toMatchObject({ type: "EXTERNAL", value: "whatever" });
    expect(h.alerts()[1]!.evalSets![0]![0]).toMatchObject({ type: "EXTERNAL", event: { id: "e" } });
  });
});

describe("numeric conditions on data that are not numbers", () => {
  it("leave the condition unevaluated", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "th", enabled: true }, conditions: [threshold("x", "GT", 1)] }));
    h.engine.sendData([h.datum("x", "high"), h.datum("x", "")]);
    expect(h.engine.stats().evaluations).toBe(0);
  });
});

describe("evaluation records of single-value conditions", () => {
  it("carry the value read from the datum and the datum's context", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "v", enabled: true, firingMatch: "ANY" },
        conditions: [
          { type: "AVAILABILITY", dataId: "up", operator: "NOT_UP" },
          { type: "STRING", dataId: "log", operator: "CONTAINS", pattern: "ERROR", ignoreCase: true },
          { type: "RANGE", dataId: "t", operatorLow: "INCLUSIVE", operatorHigh: "INCLUSIVE", thresholdLow: 0, thresholdHigh: 10, inRange: true },
        ],
      }),
    );
    h.engine.sendData([{ ...h.datum("up", "down"), context: { host: "a" } }]);
    h.engine.sendData([h.datum("log", "disk error on sda")]);
    h.engine.sendData([h.datum("t", "5")]);
    const last = (i: number) => h.alerts()[i]!.evalSets![0]!;
    expect(last(0).find((e) => e.type === "AVAILABILITY")).toMatchObject({ value: "DOWN", context: { host: "a" } });
    expect(last(1).find((e) => e.type === "STRING")).toMatchObject({ value: "disk error on sda" });
    expect(last(2).find((e) => e.type === "RANGE")).toMatchObject({ value: 5 });
    // ANY records the latest evaluation of every condition that has one
    expect(last(2).map((e) => e.type)).toEqual(["AVAILABILITY", "STRING", "RANGE"]);
  });
});

describe("missing conditions and trigger modes", () => {
  it("a FIRING missing condition rests while the trigger is in AUTORESOLVE and restarts when it returns", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "hb", enabled: true, autoResolve: true },
        conditions: [
          { type: "MISSING", dataId: "beat", interval: 1000 },
          { type: "AVAILABILITY", triggerMode: "AUTORESOLVE", dataId: "beat", operator: "UP" },
        ],
      }),
    );
    h.clock.advance(1000);
    expect(h.alerts()).toHaveLength(1);
    expect(h.engine.getMode(TENANT, "hb")).toBe("AUTORESOLVE");
    h.clock.advance(10_000);
    expect(h.alerts()).toHaveLength(1);
    h.engine.sendData([h.datum("beat", "up")]);
    expect(h.engine.getMode(TENANT, "hb")).toBe("FIRING");
    h.clock.advance(999);
    expect(h.alerts()).toHaveLength(1);
    h.clock.advance(1);
    expect(h.alerts()).toHaveLength(2);
  });

  it("an AUTORESOLVE missing condition resolves when data stop after firing", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "flap", enabled: true, autoResolve: true, autoResolveAlerts: true },
        conditions: [threshold("err", "GT", 0), { type: "MISSING", triggerMode: "AUTORESOLVE", dataId: "err", interval: 5000 }],
      }),
    );
    h.engine.sendData([h.datum("err", 3)]);
    expect(h.engine.getMode(TENANT, "flap")).toBe("AUTORESOLVE");
    h.clock.advance(4000);
    h.engine.sendData([h.datum("err", 2)]); // an arrival restarts the interval
    h.clock.advance(4999);
    expect(h.engine.getMode(TENANT, "flap")).toBe("AUTORESOLVE");
    h.clock.advance(1);
    expect(h.engine.getMode(TENANT, "flap")).toBe("FIRING");
    expect(h.effects.some((e) => e.kind === "resolveAlerts")).toBe(true);
  });
});

describe("latest values across trigger replacement", () => {
  it("replacing a compare trigger keeps the latest values of its dataIds", () => {
    const h = testEngine();
    const ft = fullTrigger({
      trigger: { id: "cmp", enabled: true },
      conditions: [{ type: "COMPARE", dataId: "a", operator: "GT", data2Id: "b" }],
    });
    h.engine.loadTrigger(ft);
    h.engine.sendData([h.datum("b", 1)]);
    h.engine.loadTrigger(ft);
    h.engine.sendData([h.datum("a", 5)]);
    expect(h.alerts()).toHaveLength(1);
  });
});
