import { describe, expect, it } from "vitest";
import { fitModel, run } from "../../src/forecast/fit.ts";
import { initialState } from "../../src/forecast/initial-state.ts";
import { MODEL_SHAPES } from "../../src/forecast/models.ts";
import { predict, varianceFactor } from "../../src/forecast/smoothing.ts";

const SES = MODEL_SHAPES.SimpleExponentialSmoothing;
const HOLT = MODEL_SHAPES.DoubleExponentialSmoothing;
const HW = MODEL_SHAPES.TripleExponentialSmoothing;

describe("simple exponential smoothing", () => {
  it("follows l = αy + (1−α)l from the first value", () => {
    const a = 0.5;
    const { state, errors } = run("SimpleExponentialSmoothing", { alpha: a, beta: 0, gamma: 0 }, [3, 5, 4, 6]);
    const l0 = 3;
    const l1 = a * 5 + (1 - a) * l0;
    const l2 = a * 4 + (1 - a) * l1;
    const l3 = a * 6 + (1 - a) * l2;
    expect(errors).toEqual([5 - l0, 4 - l1, 6 - l2]);
    expect(state.level).toBeCloseTo(l3, 12);
    expect(predict(SES, state, 1)).toBeCloseTo(l3, 12);
    expect(predict(SES, state, 5)).toBeCloseTo(l3, 12);
  });
});

describe("double exponential smoothing (Holt)", () => {
  it("starts from the second value and the first difference, then applies Holt's recurrences", () => {
    const a = 0.5;
    const b = 0.4;
    const y = [1, 3, 4, 7];
    const { state, errors } = run("DoubleExponentialSmoothing", { alpha: a, beta: b, gamma: 0 }, y);
    let l = 3;
    let t = 2;
    const e2 = 4 - (l + t);
    let lNew = a * 4 + (1 - a) * (l + t);
    t = b * (lNew - l) + (1 - b) * t;
    l = lNew;
    const e3 = 7 - (l + t);
    lNew = a * 7 + (1 - a) * (l + t);
    t = b * (lNew - l) + (1 - b) * t;
    l = lNew;
    expect(errors[0]).toBeCloseTo(e2, 12);
    expect(errors[1]).toBeCloseTo(e3, 12);
    expect(state.level).toBeCloseTo(l, 12);
    expect(state.trend).toBeCloseTo(t, 12);
    expect(predict(HOLT, state, 3)).toBeCloseTo(l + 3 * t, 12);
  });

  it("takes the initial trend from a least-squares line over the first quarter of a longer series", () => {
    const y = [2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22, 25];
    // 12 points: the warm-up is 3 points, (0,2), (1,5), (2,6): slope 2, line at index 2 = 6 + 1/3.
    const s = initialState("DoubleExponentialSmoothing", y);
    const slope = ((0 - 1) * (2 - 13 / 3) + (2 - 1) * (6 - 13 / 3)) / 2;
    expect(s.trend).toBeCloseTo(slope, 12);
    expect(s.level).toBeCloseTo(13 / 3 + slope, 12);
    const { errors } = run("DoubleExponentialSmoothing", { alpha: 0.3, beta: 0.3, gamma: 0 }, y);
    expect(errors).toHaveLength(y.length - 3);
  });
});

describe("triple exponential smoothing (additive Holt-Winters)", () => {
  it("starts from two seasons and applies the seasonal recurrences", () => {
    const a = 0.5;
    const b = 0.5;
    const g = 0.5;
    const y = [1, 3, 2, 4, 3, 6];
    // Initial state after two seasons of length 2: season means 2 and 3.
    const trend0 = (3 - 2) / 2;
    const d = (i: number, mean: number, v: number) => v - (mean + (i - 0.5) * trend0);
    const s0 = (d(0, 2, 1) + d(0, 3, 2)) / 2;
    const s1 = (d(1, 2, 3) + d(1, 3, 4)) / 2;
    const level0 = 3 + 0.5 * trend0;
    const init = initialState("TripleExponentialSmoothing", y, 2);
    expect(init.trend).toBeCloseTo(trend0, 12);
    expect(init.level).toBeCloseTo(level0, 12);
    expect(init.seasonals[0]).toBeCloseTo(s0, 12);
    expect(init.seasonals[1]).toBeCloseTo(s1, 12);

    const { state, errors } = run("TripleExponentialSmoothing", { alpha: a, beta: b, gamma: g }, y, 2);
    // y[4] falls on season 0.
    const e4 = 3 - (level0 + trend0 + s0);
    const l4 = a * (3 - s0) + (1 - a) * (level0 + trend0);
    const t4 = b * (l4 - level0) + (1 - b) * trend0;
    const s0b = g * (3 - l4) + (1 - g) * s0;
    // y[5] falls on season 1.
    const e5 = 6 - (l4 + t4 + s1);
    const l5 = a * (6 - s1) + (1 - a) * (l4 + t4);
    const t5 = b * (l5 - l4) + (1 - b) * t4;
    const s1b = g * (6 - l5) + (1 - g) * s1;
    expect(errors[0]).toBeCloseTo(e4, 12);
    expect(errors[1]).toBeCloseTo(e5, 12);
    expect(state.level).toBeCloseTo(l5, 12);
    expect(state.trend).toBeCloseTo(t5, 12);
    expect(state.seasonals[0]).toBeCloseTo(s0b, 12);
    expect(state.seasonals[1]).toBeCloseTo(s1b, 12);
    expect(predict(HW, state, 1)).toBeCloseTo(l5 + t5 + s0b, 12);
    expect(predict(HW, state, 2)).toBeCloseTo(l5 + 2 * t5 + s1b, 12);
    expect(predict(HW, state, 3)).toBeCloseTo(l5 + 3 * t5 + s0b, 12);
  });
});

describe("forecast variance factor", () => {
  it("sums the squared error-correction coefficients of each model", () => {
    const p = { alpha: 0.5, beta: 0.4, gamma: 0.3 };
    expect(varianceFactor(SES, p, 0, 1)).toBe(1);
    expect(varianceFactor(SES, p, 0, 3)).toBeCloseTo(1 + 2 * 0.5 ** 2, 12);
    const c = (j: number) => 0.5 * (1 + j * 0.4);
    expect(varianceFactor(HOLT, p, 0, 3)).toBeCloseTo(1 + c(1) ** 2 + c(2) ** 2, 12);
    const cs = (j: number) => c(j) + (j % 2 === 0 ? 0.3 * (1 - 0.5) : 0);
    expect(varianceFactor(HW, p, 2, 4)).toBeCloseTo(1 + cs(1) ** 2 + cs(2) ** 2 + cs(3) ** 2, 12);
  });
});

describe("parameter fitting", () => {
  it("finds the α with the least squared one-step error (checked against a fine scan)", () => {
    const y = [10, 12, 11, 15, 14, 13, 17, 16, 18, 17, 21, 19, 20];
    const sse = (a: number) => {
      let l = y[0]!;
      let s = 0;
      for (let t = 1; t < y.length; t++) {
        s += (y[t]! - l) ** 2;
        l = a * y[t]! + (1 - a) * l;
      }
      return s;
    };
    let best = Number.POSITIVE_INFINITY;
    for (let a = 0.0001; a < 1; a += 0.0005) best = Math.min(best, sse(a));
    const fit = fitModel("SimpleExponentialSmoothing", y)!;
    expect(fit.model.residuals.sumSquares).toBeLessThanOrEqual(best + 1e-6);
    expect(fit.model.residuals.sumSquares).toBeCloseTo(sse(fit.model.params.alpha), 9);
  });

  it("keeps every fitted parameter inside (0, 1)", () => {
    const y = Array.from({ length: 40 }, (_, t) => 5 + 2 * t + (t % 4) * 3);
    for (const [name, period] of [
      ["SimpleExponentialSmoothing", 0],
      ["DoubleExponentialSmoothing", 0],
      ["TripleExponentialSmoothing", 4],
    ] as const) {
      const { params } = fitModel(name, y, period)!.model;
      for (const v of [params.alpha, ...(name === "SimpleExponentialSmoothing" ? [] : [params.beta])]) {
        expect(v).toBeGreaterThan(0);
        expect(v).toBeLessThan(1);
      }
    }
  });

  it("fits nothing when there are too few points or no season", () => {
    expect(fitModel("SimpleExponentialSmoothing", [1, 2])).toBeUndefined();
    expect(fitModel("DoubleExponentialSmoothing", [1, 2, 3])).toBeUndefined();
    expect(fitModel("TripleExponentialSmoothing", Array.from({ length: 10 }, (_, i) => i % 4), 4)).toBeUndefined();
    expect(fitModel("TripleExponentialSmoothing", Array.from({ length: 30 }, (_, i) => i % 4), 0)).toBeUndefined();
  });

  it("reproduces a noiseless seasonal series almost exactly", () => {
    const y = Array.from({ length: 48 }, (_, t) => 20 + 0.5 * t + [3, -1, -4, 2][t % 4]!);
    const fit = fitModel("TripleExponentialSmoothing", y, 4)!;
    expect(fit.model.residuals.sumSquares).toBeLessThan(1e-6);
    const next = predict(HW, fit.model.state, 1);
    expect(next).toBeCloseTo(20 + 0.5 * 48 + 3, 4);
  });
});
