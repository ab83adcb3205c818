/**
 * Display strings in Hawkular Alerting's formats: its `String.format` patterns (`%.2f`, `%tc`,
 * `Double.toString`) as Java writes them, for every condition and evaluation type.
 */
import { describe, expect, it } from "vitest";
import { conditionDisplay, evalDisplay } from "../../src/alerts/conditions/display.ts";
import { fixed2, javaDate, javaDouble } from "../../src/alerts/conditions/java-text.ts";
import type { Condition, ConditionEval } from "../../src/alerts/model.ts";

describe("Java's number and date texts", () => {
  it.each([
    [4, "4.00"],
    [0, "0.00"],
    [0.125, "0.13"],
    [2.675, "2.68"],
    [1.005, "1.01"],
    [0.005, "0.01"],
    [0.0049, "0.00"],
    [99.995, "100.00"],
    [-1.5, "-1.50"],
    [1e-7, "0.00"],
    [1e21, "1000000000000000000000.00"],
    [Number.NaN, "NaN"],
    [Number.NEGATIVE_INFINITY, "-Infinity"],
  ])("%%.2f of %s is %s", (x, want) => {
    expect(fixed2(x)).toBe(want);
  });

  it.each([
    [5, "5.0"],
    [0.1, "0.1"],
    [1e7, "1.0E7"],
    [1.5e-5, "1.5E-5"],
    [123456.789, "123456.789"],
  ])("Double.toString(%s) is %s", (x, want) => {
    expect(javaDouble(x)).toBe(want);
  });

  it("%tc in UTC", () => {
    expect(javaDate(Date.UTC(2017, 10, 14, 10, 30, 5))).toBe("Tue Nov 14 10:30:05 UTC 2017");
  });
});

const base = { tenantId: "t", triggerId: "tr", triggerMode: "FIRING", conditionSetSize: 1, conditionSetIndex: 1, conditionId: "c" } as const;

describe("display strings", () => {
  it("of conditions", () => {
    const rate = { ...base, type: "RATE", dataId: "r", direction: "INCREASING", operator: "GT", threshold: 10, period: "MINUTE" } as Condition;
    const nelson = { ...base, type: "NELSON", dataId: "n", activeRules: ["Rule1", "Rule2"], sampleSize: 50 } as Condition;
    const external = { ...base, type: "EXTERNAL", dataId: "d", alerterId: "HawkularMetrics", expression: "avg(x) > 1" } as Condition;
    const event = { ...base, type: "EVENT", dataId: "e" } as Condition;
    expect(conditionDisplay(rate)).toBe("r INCREASING GT 10.00 per MINUTE");
    // A Java HashSet's order: "Rule2" hashes to bucket 12, "Rule1" to bucket 15.
    expect(conditionDisplay(nelson)).toBe("n activeNelsonRules=[Rule2, Rule1] sampleSize=50");
    expect(conditionDisplay(external)).toBe("HawkularMetrics: d matches [avg(x) > 1]");
    expect(conditionDisplay(event)).toBe("e matches [null]");
  });

  it("of evaluations", () => {
    const t = 1_510_574_998_551;
    const rate = {
      type: "RATE",
      condition: { ...base, type: "RATE", dataId: "r", direction: "INCREASING", operator: "GT", threshold: 10, period: "MINUTE" },
      evalTimestamp: t,
      dataTimestamp: t,
      previousValue: 1,
      value: 31,
      previousTime: t - 60_000,
      time: t,
      rate: 30,
    } as ConditionEval;
    const missing = { type: "MISSING", condition: { ...base, type: "MISSING", dataId: "m", interval: 60000 }, evalTimestamp: t, dataTimestamp: t, previousTime: t - 90_000, time: t } as ConditionEval;
    const avail = { type: "AVAILABILITY", condition: { ...base, type: "AVAILABILITY", dataId: "a", operator: "NOT_UP" }, evalTimestamp: t, dataTimestamp: t, value: "DOWN" } as ConditionEval;
    expect(evalDisplay(rate)).toBe("Rate: r[30.00] INCREASING GT 10.0 per MINUTE");
    expect(evalDisplay(missing)).toBe("Missing: m[Mon Nov 13 12:09:58 UTC 2017] 90000ms GTE 60000ms");
    expect(evalDisplay(avail)).toBe("Avail: a[DOWN] is NOT_UP");
  });
});
