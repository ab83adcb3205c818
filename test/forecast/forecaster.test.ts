import { describe, expect, it } from "vitest";
import { MIN_ERRORS_FOR_CHANGE, newTracker, shouldReselect, track } from "../../src/forecast/drift.ts";
import {
  forecast,
  type ForecasterState,
  learn,
  ModelNotReadyError,
  newForecaster,
  reconfigure,
  windowCapacity,
} from "../../src/forecast/forecaster.ts";
import { linearTrend, seasonal, whiteNoise } from "../helpers/series.ts";

const points = (values: number[], start = 0, step = 1000) => values.map((value, i) => ({ timestamp: start + i * step, value }));

describe("concept drift strategies", () => {
  it("periodic interval: re-selects after the given number of points", () => {
    const t = newTracker({ count: 10, sumSquares: 10, sumAbs: 10 });
    const s = { strategy: "PeriodicIntervalStrategy", period: 3 } as const;
    track(t, 1);
    track(t, 1);
    expect(shouldReselect(s, t)).toBe(false);
    track(t, 1);
    expect(shouldReselect(s, t)).toBe(true);
  });

  it("error change: re-selects when the mean error moves by more than the percentage", () => {
    // Error at selection: MAE 1, MSE 1.
    const s = { strategy: "ErrorChangeStrategy", percentageChange: 20, statistics: "MAE" } as const;
    const stable = newTracker({ count: 10, sumSquares: 10, sumAbs: 10 });
    for (let i = 0; i < MIN_ERRORS_FOR_CHANGE; i++) track(stable, i % 2 ? 1.1 : -1.1);
    expect(shouldReselect(s, stable)).toBe(false);

    const worse = newTracker({ count: 10, sumSquares: 10, sumAbs: 10 });
    for (let i = 0; i < MIN_ERRORS_FOR_CHANGE - 1; i++) track(worse, 3);
    expect(shouldReselect(s, worse)).toBe(false);
    track(worse, 3);
    expect(shouldReselect(s, worse)).toBe(true);

    // MSE reacts to the same errors more than MAE: 1.1² = 1.21 is a 21 % change.
    expect(shouldReselect({ ...s, statistics: "MSE" }, stable)).toBe(true);
  });

  it("error change in the forecaster: a level shift triggers re-selection, steady data does not", () => {
    const f = newForecaster({ conceptDriftStrategy: { strategy: "ErrorChangeStrategy", percentageChange: 100, statistics: "MAE" } });
    const base = whiteNoise(60, 31);
    learn(f, points(base));
    const shifted = whiteNoise(MIN_ERRORS_FOR_CHANGE, 32, 60);
    const results = shifted.map((v, i) => learn(f, [{ timestamp: 60_000 + i * 1000, value: v }]).reselected);
    expect(results.slice(0, -1).every((r) => !r)).toBe(true);
    expect(results.at(-1)).toBe(true);
    expect(f.drift!.sinceSelection).toBe(0);

    const g = newForecaster({ conceptDriftStrategy: { strategy: "PeriodicIntervalStrategy", period: 1000 } });
    learn(g, points(base));
    const again = shifted.map((v, i) => learn(g, [{ timestamp: 60_000 + i * 1000, value: v }]).reselected);
    expect(again.some((r) => r)).toBe(false);
  });

  it("periodic interval in the forecaster: re-selects every period points", () => {
    const f = newForecaster({ conceptDriftStrategy: { strategy: "PeriodicIntervalStrategy", period: 5 } });
    learn(f, points(linearTrend(30, 33)));
    const flags = linearTrend(40, 33)
      .slice(30)
      .map((v, i) => learn(f, [{ timestamp: (30 + i) * 1000, value: v }]).reselected);
    expect(flags).toEqual([false, false, false, false, true, false, false, false, false, true]);
  });
});

describe("automatic forecaster", () => {
  it("refuses to forecast before it has a model", () => {
    const f = newForecaster();
    expect(() => forecast(f, 1, 1000)).toThrow(ModelNotReadyError);
    learn(f, points([1, 2]));
    expect(() => forecast(f, 1, 1000)).toThrow(/Model not initialized/);
  });

  it("forecasts ahead from the last learned timestamp with a 95 % band that widens", () => {
    const f = newForecaster();
    learn(f, points(linearTrend(60, 34)));
    const out = forecast(f, 5, 1000);
    expect(out.map((p) => p.timestamp)).toEqual([60_000, 61_000, 62_000, 63_000, 64_000]);
    const model = f.model!;
    const sigma = Math.sqrt(model.residuals.sumSquares / model.residuals.count);
    const first = out[0]!;
    expect(first.max - first.value).toBeCloseTo(1.959963984540054 * sigma, 9);
    expect(first.value - first.min).toBeCloseTo(first.max - first.value, 9);
    for (let i = 1; i < out.length; i++) expect(out[i]!.max - out[i]!.min).toBeGreaterThan(out[i - 1]!.max - out[i - 1]!.min);
    // A rising trend is forecast rising.
    expect(out[4]!.value).toBeGreaterThan(out[0]!.value);
  });

  it("ignores points not newer than the last learned one and keeps one value per timestamp", () => {
    const f = newForecaster();
    const r1 = learn(f, [
      { timestamp: 3000, value: 3 },
      { timestamp: 1000, value: 1 },
      { timestamp: 2000, value: 9 },
      { timestamp: 2000, value: 2 },
    ]);
    expect(r1.learned).toBe(3);
    expect(f.window.values).toEqual([1, 2, 3]);
    const r2 = learn(f, [
      { timestamp: 2500, value: 7 },
      { timestamp: 4000, value: 4 },
      { timestamp: 5000, value: Number.NaN },
    ]);
    expect(r2).toMatchObject({ learned: 1, ignored: 2 });
    expect(f.window.values).toEqual([1, 2, 3, 4]);
    expect(f.lastTimestamp).toBe(4000);
  });

  it("keeps a window of windowSize points, widened to three seasons for a seasonal series", () => {
    const f = newForecaster({ windowSize: 20 });
    learn(f, points(whiteNoise(50, 35)));
    expect(f.window.values).toHaveLength(20);
    expect(windowCapacity(f)).toBe(20);

    const g = newForecaster({ windowSize: 30 });
    for (const p of points(seasonal(120, 36, 12))) learn(g, [p]);
    expect(g.period).toBe(12);
    expect(windowCapacity(g)).toBe(36);
    expect(g.model!.name).toBe("TripleExponentialSmoothing");
  });

  it("re-selects on reconfiguration; absent fields stay, null clears", () => {
    const f = newForecaster();
    learn(f, points(seasonal(72, 37)));
    expect(f.model!.name).toBe("TripleExponentialSmoothing");
    reconfigure(f, { modelToUse: "SimpleExponentialSmoothing", ic: "BIC" });
    expect(f.model!.name).toBe("SimpleExponentialSmoothing");
    expect(f.config).toMatchObject({ ic: "BIC", windowSize: 60, modelToUse: "SimpleExponentialSmoothing" });
    reconfigure(f, { windowSize: 30 });
    expect(f.config.modelToUse).toBe("SimpleExponentialSmoothing");
    reconfigure(f, { modelToUse: null, windowSize: 72 });
    expect(f.config.modelToUse).toBeUndefined();
  });

  it("forced seasonal model without enough points explains what it needs", () => {
    const f = newForecaster({ modelToUse: "TripleExponentialSmoothing", period: 24 });
    learn(f, points(seasonal(40, 38)));
    expect(() => forecast(f, 1, 1000)).toThrow(/period 24 needs 72/);
  });

  it("survives a JSON round trip: a restored forecaster continues exactly like the original", () => {
    const f = newForecaster();
    const y = seasonal(110, 39);
    learn(f, points(y.slice(0, 80)));
    const restored = JSON.parse(JSON.stringify(f)) as ForecasterState;
    const rest = points(y).slice(80);
    for (const p of rest) {
      learn(f, [p]);
      learn(restored, [p]);
    }
    expect(forecast(restored, 12, 1000)).toEqual(forecast(f, 12, 1000));
  });
});
