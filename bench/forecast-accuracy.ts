/**
 * Accuracy of the automatic forecaster against naive forecasts, on three synthetic hourly
 * series (test/helpers/series.ts: slope 0.5 with noise 2; a daily sine of amplitude 10 with
 * noise 1 and a slight trend; a Gaussian random walk), default configuration. Rolling origin: the forecaster learns the series point by point (as it would from
 * the store), and every 4 points forecasts the next 24. Prints MAE and RMSE per horizon,
 * how often each model was in use, how often the 95 % band held the true value, and the
 * time learning took (one point per call, re-selections included).
 *
 *   node_modules/.bin/bun bench/forecast-accuracy.ts
 */
import { forecast, learn, newForecaster } from "../src/forecast/forecaster.ts";
import { linearTrend, randomWalk, seasonal } from "../test/helpers/series.ts";

const HOURS = 24 * 14;
const FIRST_ORIGIN = 24 * 4;
const ORIGIN_STEP = 4;
const HORIZON = 24;
const SEEDS = [1, 2, 3, 4, 5];
const HOUR_MS = 3_600_000;

const SERIES: Record<string, (seed: number) => number[]> = {
  "noisy linear trend": (seed) => linearTrend(HOURS, seed),
  "daily seasonal": (seed) => seasonal(HOURS, seed),
  "random walk": (seed) => randomWalk(HOURS, seed),
};

interface Errors {
  abs: number[];
  sq: number[];
  count: number[];
}
const newErrors = (): Errors => ({ abs: new Array(HORIZON).fill(0), sq: new Array(HORIZON).fill(0), count: new Array(HORIZON).fill(0) });
function add(e: Errors, h: number, err: number) {
  e.abs[h]! += Math.abs(err);
  e.sq[h]! += err * err;
  e.count[h]!++;
}
const mae = (e: Errors, hs: number[]) => hs.reduce((a, h) => a + e.abs[h - 1]!, 0) / hs.reduce((a, h) => a + e.count[h - 1]!, 0);
const rmse = (e: Errors, hs: number[]) => Math.sqrt(hs.reduce((a, h) => a + e.sq[h - 1]!, 0) / hs.reduce((a, h) => a + e.count[h - 1]!, 0));

const fmt = (x: number) => x.toFixed(2).padStart(8);
const started = performance.now();
for (const [name, make] of Object.entries(SERIES)) {
  const model = newErrors();
  const naive = newErrors();
  const seasonalNaive = newErrors();
  const used = new Map<string, number>();
  let inside = 0;
  let total = 0;
  let learnMs = 0;
  let learnCalls = 0;
  let reselections = 0;
  for (const seed of SEEDS) {
    const y = make(seed);
    const f = newForecaster();
    let learned = 0;
    for (let origin = FIRST_ORIGIN; origin + HORIZON <= HOURS; origin += ORIGIN_STEP) {
      for (; learned < origin; learned++) {
        const t = performance.now();
        if (learn(f, [{ timestamp: learned * HOUR_MS, value: y[learned]! }]).reselected) reselections++;
        learnMs += performance.now() - t;
        learnCalls++;
      }
      const out = forecast(f, HORIZON, HOUR_MS);
      used.set(f.model!.name, (used.get(f.model!.name) ?? 0) + 1);
      for (let h = 1; h <= HORIZON; h++) {
        const actual = y[origin + h - 1]!;
        const p = out[h - 1]!;
        add(model, h - 1, p.value - actual);
        add(naive, h - 1, y[origin - 1]! - actual);
        add(seasonalNaive, h - 1, y[origin - 24 + ((h - 1) % 24)]! - actual);
        total++;
        if (actual >= p.min && actual <= p.max) inside++;
      }
    }
  }
  console.log(`\n${name} (${SEEDS.length} seeds × ${Math.floor((HOURS - FIRST_ORIGIN - HORIZON) / ORIGIN_STEP) + 1} origins)`);
  console.log(`  models in use: ${[...used.entries()].map(([m, n]) => `${m} ${n}`).join(", ")}`);
  console.log(`  95 % band coverage: ${((100 * inside) / total).toFixed(1)} %`);
  console.log(
    `  learning: ${((1000 * learnMs) / learnCalls).toFixed(0)} µs per point on average, ${reselections} re-selections in ${learnCalls} points`,
  );
  console.log("  horizon         forecaster MAE  RMSE |  naive MAE  RMSE | seasonal naive MAE  RMSE");
  const rows: [string, number[]][] = [
    ["1", [1]],
    ["6", [6]],
    ["12", [12]],
    ["24", [24]],
    ["1..24 (all)", Array.from({ length: HORIZON }, (_, i) => i + 1)],
  ];
  for (const [label, hs] of rows) {
    console.log(
      `  ${label.padEnd(14)} ${fmt(mae(model, hs))}${fmt(rmse(model, hs))}  | ${fmt(mae(naive, hs))}${fmt(rmse(naive, hs))} |        ${fmt(mae(seasonalNaive, hs))}${fmt(rmse(seasonalNaive, hs))}`,
    );
  }
}
console.log(`\nelapsed ${((performance.now() - started) / 1000).toFixed(1)} s`);
