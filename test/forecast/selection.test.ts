import { describe, expect, it } from "vitest";
import { informationCriterion } from "../../src/forecast/criteria.ts";
import { detectPeriod } from "../../src/forecast/period.ts";
import { chooseByCriterion, selectModel } from "../../src/forecast/select.ts";
import { linearTrend, randomWalk, seasonal, whiteNoise } from "../helpers/series.ts";

describe("information criteria", () => {
  it("computes AIC, AICc and BIC from the mean squared error", () => {
    const n = 20;
    const k = 3;
    const mse = 1.7;
    const fit = n * Math.log(mse);
    expect(informationCriterion("AIC", mse, n, k)).toBeCloseTo(fit + 2 * k, 12);
    expect(informationCriterion("AICc", mse, n, k)).toBeCloseTo(fit + 2 * k + (2 * k * (k + 1)) / (n - k - 1), 12);
    expect(informationCriterion("BIC", mse, n, k)).toBeCloseTo(fit + k * Math.log(n), 12);
  });

  it("makes AICc infinite when there are not more points than parameters plus one", () => {
    expect(informationCriterion("AICc", 1, 4, 3)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("choosing by criterion", () => {
  // Hand-computed: n = 100, simple (k=1, mse 1.00) against complex (k=3, mse 0.95):
  // AIC 2.00 vs 100·ln 0.95 + 6 = 0.87 → complex; BIC 4.61 vs −5.13 + 13.82 = 8.69 → simple.
  const large = [
    { n: 100, k: 1, mse: 1.0 },
    { n: 100, k: 3, mse: 0.95 },
  ];
  // n = 10, simple (k=1, mse 1.0) against complex (k=3, mse 0.5):
  // AIC 2 vs −0.93 → complex; AICc 2.5 vs −0.93 + 4 = 3.07 → simple; BIC 2.30 vs −0.02 → complex.
  const small = [
    { n: 10, k: 1, mse: 1.0 },
    { n: 10, k: 3, mse: 0.5 },
  ];
  const argmin = (cs: typeof large, ic: "AIC" | "AICc" | "BIC") => {
    const s = cs.map((c) => informationCriterion(ic, c.mse, c.n, c.k));
    return s.indexOf(Math.min(...s));
  };

  it("picks the lowest AIC", () => {
    expect(chooseByCriterion(large, "AIC")).toBe(argmin(large, "AIC"));
    expect(chooseByCriterion(large, "AIC")).toBe(1);
  });
  it("picks the lowest BIC, which penalises the extra parameters more", () => {
    expect(chooseByCriterion(large, "BIC")).toBe(argmin(large, "BIC"));
    expect(chooseByCriterion(large, "BIC")).toBe(0);
  });
  it("picks the lowest AICc, which penalises parameters on few points", () => {
    expect(chooseByCriterion(small, "AICc")).toBe(argmin(small, "AICc"));
    expect(chooseByCriterion(small, "AICc")).toBe(0);
    expect(chooseByCriterion(small, "AIC")).toBe(1);
  });
  it("gives ties to the earlier, simpler candidate", () => {
    expect(chooseByCriterion([large[0]!, large[0]!], "AIC")).toBe(0);
  });
});

describe("automatic model selection", () => {
  it("selects the trend model for a noisy linear trend", () => {
    for (const ic of ["AIC", "AICc", "BIC"] as const) {
      expect(selectModel(linearTrend(60, 11), { ic })!.model.name).toBe("DoubleExponentialSmoothing");
    }
  });

  it("selects the seasonal model, with the detected period, for seasonal series", () => {
    for (const ic of ["AIC", "AICc", "BIC"] as const) {
      for (let seed = 100; seed < 110; seed++) {
        const sel = selectModel(seasonal(72, seed), { ic })!;
        expect(sel.model.name).toBe("TripleExponentialSmoothing");
        expect(sel.model.period).toBe(24);
      }
    }
  });

  it("selects simple smoothing for noise around a level", () => {
    expect(selectModel(whiteNoise(60, 13), { ic: "BIC" })!.model.name).toBe("SimpleExponentialSmoothing");
  });

  it("compares every candidate on the same points and reports their scores best first", () => {
    const sel = selectModel(seasonal(72, 14), { ic: "AICc" })!;
    expect(sel.scores.map((s) => s.name).sort()).toEqual([
      "DoubleExponentialSmoothing",
      "SimpleExponentialSmoothing",
      "TripleExponentialSmoothing",
    ]);
    expect(new Set(sel.scores.map((s) => s.n)).size).toBe(1);
    for (let i = 1; i < sel.scores.length; i++) expect(sel.scores[i]!.score).toBeGreaterThanOrEqual(sel.scores[i - 1]!.score);
  });

  it("fits only the model asked for", () => {
    const sel = selectModel(seasonal(72, 15), { ic: "AICc", modelToUse: "SimpleExponentialSmoothing" })!;
    expect(sel.model.name).toBe("SimpleExponentialSmoothing");
    expect(sel.scores).toHaveLength(1);
  });

  it("uses a given period instead of detecting one", () => {
    const sel = selectModel(seasonal(72, 16, 12), { ic: "AICc", modelToUse: "TripleExponentialSmoothing", period: 12 })!;
    expect(sel.model.period).toBe(12);
  });

  it("selects nothing with too few points", () => {
    expect(selectModel([1, 2], { ic: "AICc" })).toBeUndefined();
  });
});

describe("period detection", () => {
  it("finds the season of a noisy seasonal series, with or without trend", () => {
    expect(detectPeriod(seasonal(96, 21, 12))).toBe(12);
    expect(detectPeriod(seasonal(72, 22, 24))).toBe(24);
    const trended = seasonal(96, 23, 8).map((v, t) => v + 0.8 * t);
    expect(detectPeriod(trended)).toBe(8);
  });

  it("prefers the season over its multiples", () => {
    expect(detectPeriod(seasonal(200, 24, 6))).toBe(6);
  });

  it("finds no season in noise, a trend, a random walk or a constant", () => {
    expect(detectPeriod(whiteNoise(100, 25))).toBeUndefined();
    expect(detectPeriod(linearTrend(100, 26))).toBeUndefined();
    expect(detectPeriod(randomWalk(100, 27))).toBeUndefined();
    expect(detectPeriod(new Array(50).fill(3))).toBeUndefined();
  });

  it("does not look beyond half the series", () => {
    expect(detectPeriod(seasonal(40, 28, 24))).toBeUndefined();
  });
});
