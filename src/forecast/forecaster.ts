import type { InformationCriterion } from "./criteria.ts";
import { type ConceptDriftStrategy, DEFAULT_DRIFT_STRATEGY, type DriftTracker, newTracker, shouldReselect, track } from "./drift.ts";
import { errorSums, type FittedModel } from "./fit.ts";
import { MODEL_SHAPES, type ModelName, minPoints } from "./models.ts";
import { detectPeriod } from "./period.ts";
import { type CandidateScore, selectModel } from "./select.ts";
import { observe, predict, varianceFactor } from "./smoothing.ts";

export interface ForecasterConfig {
  /** Points kept for (re)selection; the seasonal model widens it to three seasons. */
  windowSize: number;
  ic: InformationCriterion;
  /** Forces one model; absent: chosen automatically by `ic`. */
  modelToUse?: ModelName;
  /** Season length; absent: detected from the window. */
  period?: number;
  conceptDriftStrategy: ConceptDriftStrategy;
}

export const DEFAULT_CONFIG: ForecasterConfig = {
  windowSize: 60,
  ic: "AICc",
  conceptDriftStrategy: DEFAULT_DRIFT_STRATEGY,
};

/** Smallest window: below it a fitted parameter has almost nothing to stand on. */
export const MIN_WINDOW_SIZE = 6;

/** Changes to the configuration: absent fields stay, null clears an optional one. */
export interface ForecasterUpdate {
  windowSize?: number;
  ic?: InformationCriterion;
  modelToUse?: ModelName | null;
  period?: number | null;
  conceptDriftStrategy?: ConceptDriftStrategy;
}

export interface LearnPoint {
  timestamp: number;
  value: number;
}

export interface ForecastPoint {
  timestamp: number;
  value: number;
  min: number;
  max: number;
}

/**
 * Everything a forecaster knows, as plain JSON, so that it can be stored and restored:
 * configuration, the window of recent points, the current model and the drift bookkeeping.
 */
export interface ForecasterState {
  config: ForecasterConfig;
  window: { timestamps: number[]; values: number[] };
  model?: FittedModel;
  /** Season length in use: the configured one, else the one detected at the last selection. */
  period?: number;
  /** How the candidates scored at the last selection. */
  scores?: CandidateScore[];
  drift?: DriftTracker;
  /** Points learned in total. */
  learned: number;
  /** Timestamp of the newest learned point; older points are ignored. */
  lastTimestamp?: number;
}

/** Raised when a forecast is asked of a forecaster that has no model yet. */
export class ModelNotReadyError extends Error {}

/** Two-sided 95 % quantile of the normal distribution. */
const Z95 = 1.959963984540054;

export function newForecaster(config: Partial<ForecasterConfig> = {}): ForecasterState {
  return { config: { ...DEFAULT_CONFIG, ...config }, window: { timestamps: [], values: [] }, learned: 0 };
}

/** Largest window a forecaster keeps, whatever the season: bounds state size and fitting time. */
export const MAX_WINDOW_SIZE = 10_000;

/**
 * Points the window keeps: the configured size, or three seasons when that is more, so that
 * the seasonal model can start from two seasons and be compared with the others on a third.
 */
export function windowCapacity(f: ForecasterState): number {
  return Math.min(MAX_WINDOW_SIZE, Math.max(f.config.windowSize, 3 * (f.period ?? 0)));
}

/**
 * Re-selects the model on the window (no model when none can be fitted yet). The season is
 * detected on the newest points that fit the window as it stands (so seasons up to half the
 * window are found); the window is then trimmed to its capacity, which that season may widen
 * (a large batch of points thus keeps the three seasons the seasonal model needs).
 */
export function reselect(f: ForecasterState): void {
  const { config } = f;
  const seasonal = config.modelToUse === undefined || config.modelToUse === "TripleExponentialSmoothing";
  f.period = config.period ?? (seasonal ? detectPeriod(f.window.values.slice(-windowCapacity(f))) : undefined);
  trimWindow(f);
  const sel = selectModel(f.window.values, { ic: config.ic, modelToUse: config.modelToUse, period: f.period ?? 0 });
  f.model = sel?.model;
  f.scores = sel?.scores;
  f.drift = sel ? newTracker(errorSums(sel.errors)) : undefined;
}

/** Sorted by time, one point per timestamp (the last one given wins), finite values only. */
function orderPoints(points: LearnPoint[]): LearnPoint[] {
  const byTime = new Map<number, number>();
  for (const p of points) if (Number.isFinite(p.value) && Number.isFinite(p.timestamp)) byTime.set(p.timestamp, p.value);
  return [...byTime.entries()].sort((a, b) => a[0] - b[0]).map(([timestamp, value]) => ({ timestamp, value }));
}

export interface LearnResult {
  /** Points taken in. */
  learned: number;
  /** Points ignored: not newer than the last learned one. */
  ignored: number;
  reselected: boolean;
}

/**
 * Learns points in time order. Each point updates the current model's state with its fixed
 * parameters (cheap); the model is re-selected on the window when there is none yet, when
 * the window has just filled up (a grown window may admit the seasonal model), or when the
 * concept drift strategy asks for it. A model learns a stream forward, so points at or before
 * the newest learned timestamp are ignored.
 */
export function learn(f: ForecasterState, points: LearnPoint[]): LearnResult {
  const fresh = orderPoints(points).filter((p) => f.lastTimestamp === undefined || p.timestamp > f.lastTimestamp);
  const before = f.window.values.length;
  const ignored = points.length - fresh.length;
  for (const p of fresh) {
    if (f.model) {
      const e = observe(MODEL_SHAPES[f.model.name], f.model.params, f.model.state, p.value);
      const r = f.model.residuals;
      r.count++;
      r.sumSquares += e * e;
      r.sumAbs += Math.abs(e);
      if (f.drift) track(f.drift, e);
    }
    f.window.timestamps.push(p.timestamp);
    f.window.values.push(p.value);
    f.learned++;
    f.lastTimestamp = p.timestamp;
  }
  const capacity = windowCapacity(f);
  const filled = before < capacity && f.window.values.length >= capacity;
  const reselected = fresh.length > 0 && (filled || !f.model || !f.drift || shouldReselect(f.config.conceptDriftStrategy, f.drift));
  if (reselected) reselect(f);
  else trimWindow(f);
  return { learned: fresh.length, ignored, reselected };
}

function trimWindow(f: ForecasterState): void {
  const excess = f.window.values.length - windowCapacity(f);
  if (excess > 0) {
    f.window.timestamps.splice(0, excess);
    f.window.values.splice(0, excess);
  }
}

/** Applies a configuration change and re-selects the model, as any change of model settings must. */
export function reconfigure(f: ForecasterState, u: ForecasterUpdate): void {
  const c = f.config;
  if (u.windowSize !== undefined) c.windowSize = u.windowSize;
  if (u.ic !== undefined) c.ic = u.ic;
  if (u.conceptDriftStrategy !== undefined) c.conceptDriftStrategy = u.conceptDriftStrategy;
  if (u.modelToUse === null) delete c.modelToUse;
  else if (u.modelToUse !== undefined) c.modelToUse = u.modelToUse;
  if (u.period === null) delete c.period;
  else if (u.period !== undefined) c.period = u.period;
  if (f.window.values.length > 0) reselect(f);
  else trimWindow(f);
}

function notReadyMessage(f: ForecasterState): string {
  const name = f.config.modelToUse;
  const have = `${f.window.values.length} point(s) learned`;
  if (name === "TripleExponentialSmoothing") {
    const m = f.config.period;
    return m
      ? `Model not initialized: ${have}; TripleExponentialSmoothing with period ${m} needs ${minPoints(name, m)}`
      : `Model not initialized: ${have}; TripleExponentialSmoothing needs a detectable season (or a period) and two seasons and a half of points`;
  }
  return `Model not initialized: ${have}; ${name ?? "a model"} needs at least ${minPoints(name ?? "SimpleExponentialSmoothing")}`;
}

/**
 * Forecasts `ahead` points after the newest learned one, `stepMs` apart, with a 95 % band
 * from the one-step error variance, widened for each step as the model's recurrences imply.
 */
export function forecast(f: ForecasterState, ahead: number, stepMs: number): ForecastPoint[] {
  const model = f.model;
  if (!model || f.lastTimestamp === undefined) throw new ModelNotReadyError(notReadyMessage(f));
  const shape = MODEL_SHAPES[model.name];
  const r = model.residuals;
  const variance = r.count > 0 ? r.sumSquares / r.count : 0;
  const out: ForecastPoint[] = [];
  for (let h = 1; h <= ahead; h++) {
    const value = predict(shape, model.state, h);
    const half = Z95 * Math.sqrt(variance * varianceFactor(shape, model.params, model.period, h));
    out.push({ timestamp: f.lastTimestamp + h * stepMs, value, min: value - half, max: value + half });
  }
  return out;
}

/** Median spacing of the window's timestamps: the forecast step when none is configured. */
export function typicalStep(f: ForecasterState): number | undefined {
  const ts = f.window.timestamps;
  if (ts.length < 2) return undefined;
  const gaps: number[] = [];
  for (let i = 1; i < ts.length; i++) gaps.push(ts[i]! - ts[i - 1]!);
  gaps.sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)]!;
}
