import { describe, expect, it } from "vitest";
import { type NelsonRule, NelsonState } from "../../src/alerts/index.ts";
import { nelsonRulesOf } from "../../src/alerts/nelson.ts";
import { fullTrigger, testEngine } from "./helpers.ts";

/**
 * Baseline [10, 10, 10, 16]: mean 11.5, sample standard deviation 3 (squares 2.25·3 + 20.25 = 27,
 * over n−1 = 3 gives 9). So 1σ = 3, 2σ = 6, 3σ = 9. The rules also judge the 4th baseline sample
 * itself (16: above the mean, outside 1σ), which the series below take into account.
 */
const BASELINE = [10, 10, 10, 16];

function withBaseline(): NelsonState {
  const s = new NelsonState(4);
  for (const x of BASELINE) s.add(x, 0);
  return s;
}

/** The rules violated by each sample of `series`. */
function run(s: NelsonState, series: number[]): NelsonRule[][] {
  return series.map((x, i) => nelsonRulesOf(s.add(x, i + 1)));
}

const has = (rule: NelsonRule) => (rules: NelsonRule[]) => rules.includes(rule);

describe("Nelson baseline", () => {
  it("is the mean and sample standard deviation of the first sampleSize samples, then frozen", () => {
    const s = withBaseline();
    expect(s.mean).toBe(11.5);
    expect(s.sigma).toBeCloseTo(3, 12);
    run(s, [100, 100, 100, -50]);
    expect(s.mean).toBe(11.5);
    expect(s.sigma).toBeCloseTo(3, 12);
  });

  it("rules that need the mean stay silent until the baseline is complete", () => {
    const s = new NelsonState(4);
    const out = run(s, [10, 1000, 10]);
    expect(out.every((r) => !r.includes("Rule1") && !r.includes("Rule2"))).toBe(true);
    expect(s.hasBaseline).toBe(false);
  });
});

describe("Nelson rules on constructed series", () => {
  it("Rule1: one point more than 3σ from the mean, either side", () => {
    const out = run(withBaseline(), [20.4, 20.6, 2.6, 2.4]);
    expect(out.map(has("Rule1"))).toEqual([false, true, false, true]);
  });

  it("Rule2: nine points in a row on the same side of the mean", () => {
    const out = run(withBaseline(), Array(9).fill(11)); // below; the baseline's 16 was above
    expect(out.map(has("Rule2"))).toEqual([false, false, false, false, false, false, false, false, true]);
  });

  it("Rule2: a point equal to the mean counts as below", () => {
    const out = run(withBaseline(), [11, 11, 11, 11.5, 11.5, 11, 11, 11, 11.5]);
    expect(out[8]).toContain("Rule2");
    expect(out[7]).not.toContain("Rule2");
  });

  it("Rule3: six increases in a row (seven points), without needing a baseline", () => {
    const out = run(new NelsonState(100), [1, 2, 3, 4, 5, 6, 7]);
    expect(out.map(has("Rule3"))).toEqual([false, false, false, false, false, false, true]);
  });

  it("Rule3: decreases count too, and an equal value resets the run", () => {
    expect(run(new NelsonState(100), [7, 6, 5, 4, 3, 2, 1])[6]).toContain("Rule3");
    const out = run(new NelsonState(100), [1, 2, 3, 3, 4, 5, 6, 7, 8, 9]);
    expect(out.map(has("Rule3"))).toEqual([false, false, false, false, false, false, false, false, false, true]);
  });

  it("Rule4: fourteen alternations in direction in a row", () => {
    const series = Array.from({ length: 15 }, (_, i) => i % 2);
    const out = run(new NelsonState(100), series);
    expect(out.findIndex(has("Rule4"))).toBe(14);
  });

  it("Rule4: an equal value resets the alternation count", () => {
    const series = [0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 0, 1];
    expect(run(new NelsonState(100), series).some(has("Rule4"))).toBe(false);
  });

  it("Rule5: two of three points beyond 2σ on the same side", () => {
    expect(run(withBaseline(), [18, 12, 18]).map(has("Rule5"))).toEqual([false, false, true]);
    expect(run(withBaseline(), [18, 12, 12, 18]).some(has("Rule5"))).toBe(false);
    expect(run(withBaseline(), [18, 5]).some(has("Rule5"))).toBe(false); // opposite sides
  });

  it("Rule6: four of five points beyond 1σ on the same side", () => {
    const flush = [12, 12, 12, 12, 12];
    const out = run(withBaseline(), [...flush, 15, 15, 12, 15, 15]);
    expect(out.slice(5).map(has("Rule6"))).toEqual([false, false, false, false, true]);
    expect(run(withBaseline(), [...flush, 15, 8, 15, 8, 15]).some(has("Rule6"))).toBe(false);
  });

  it("Rule7: fifteen points in a row within 1σ", () => {
    const series = Array.from({ length: 15 }, (_, i) => (i % 2 === 0 ? 12 : 11));
    const out = run(withBaseline(), series);
    expect(out.findIndex(has("Rule7"))).toBe(14);
  });

  it("Rule7: a point exactly on the mean resets the run", () => {
    const series = Array.from({ length: 15 }, (_, i) => (i === 9 ? 11.5 : 12));
    expect(run(withBaseline(), series).some(has("Rule7"))).toBe(false);
  });

  it("Rule8: eight points in a row beyond 1σ, on either side", () => {
    const series = [12, 15, 8, 15, 8, 15, 8, 15, 8];
    const out = run(withBaseline(), series);
    expect(out.map(has("Rule8"))).toEqual([false, false, false, false, false, false, false, false, true]);
  });
});

describe("Nelson conditions in the engine", () => {
  it("fire only for active rules and record violations, mean, deviation and recent data", () => {
    const h = testEngine();
    h.engine.loadTrigger(
      fullTrigger({
        trigger: { id: "spc", enabled: true },
        conditions: [{ type: "NELSON", dataId: "temp", activeRules: ["Rule1"], sampleSize: 4 }],
      }),
    );
    h.send("temp", [...BASELINE, 11, 12, 13, 14, 15, 16, 17]); // Rule3 from the run, but not Rule1
    expect(h.alerts()).toHaveLength(0);
    h.send("temp", [30]);
    expect(h.alerts()).toHaveLength(1);
    const ev = h.alerts()[0]!.evalSets![0]![0]!;
    expect(ev.type).toBe("NELSON");
    if (ev.type !== "NELSON") return;
    expect(ev.violations).toContain("Rule1");
    expect(ev.mean).toBe(11.5);
    expect(ev.standardDeviation).toBeCloseTo(3, 12);
    expect(ev.violationsData[0]!.value).toBe("30");
    expect(ev.violationsData.length).toBe(12);
  });

  it("defaults to all rules and a baseline of 50 samples", () => {
    const h = testEngine();
    const ft = fullTrigger({ trigger: { id: "spc", enabled: true }, conditions: [{ type: "NELSON", dataId: "temp" }] });
    const c = ft.conditions[0]!;
    expect(c.type === "NELSON" && [c.sampleSize, c.activeRules.length]).toEqual([50, 8]);
    h.engine.loadTrigger(ft);
    h.send("temp", [1, 2, 3, 4, 5, 6]);
    expect(h.alerts()).toHaveLength(0);
    h.send("temp", [7]); // Rule3 needs no baseline
    expect(h.alerts()).toHaveLength(1);
  });

  it("ignores values that are not numbers", () => {
    const h = testEngine();
    h.engine.loadTrigger(fullTrigger({ trigger: { id: "spc", enabled: true }, conditions: [{ type: "NELSON", dataId: "temp" }] }));
    h.send("temp", ["warm", "NaN", "Infinity"]);
    expect(h.engine.stats().evaluations).toBe(0);
  });
});
