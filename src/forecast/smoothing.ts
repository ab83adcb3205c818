import type { ModelShape } from "./models.ts";

/** Smoothing parameters, each in (0, 1). beta is used with a trend, gamma with seasons. */
export interface SmoothingParams {
  alpha: number;
  beta: number;
  gamma: number;
}

/**
 * The state after the last observation (additive components). `seasonals` is a ring of
 * length `period` (empty without seasons); `season` indexes the next observation's entry.
 */
export interface SmoothingState {
  level: number;
  trend: number;
  seasonals: number[];
  season: number;
}

function seasonal(state: SmoothingState, stepsAhead: number): number {
  const m = state.seasonals.length;
  if (m === 0) return 0;
  return state.seasonals[(state.season + stepsAhead - 1) % m]!;
}

/** Point forecast `h` steps after the last observation. */
export function predict(shape: ModelShape, state: SmoothingState, h: number): number {
  return state.level + (shape.trend ? h * state.trend : 0) + (shape.seasonal ? seasonal(state, h) : 0);
}

/**
 * Folds one observation into the state (classical additive Holt-Winters recurrences; without
 * trend and season they reduce to Holt's and to simple smoothing). Returns the one-step error.
 */
export function observe(shape: ModelShape, p: SmoothingParams, state: SmoothingState, y: number): number {
  const error = y - predict(shape, state, 1);
  const prevLevel = state.level;
  const s = shape.seasonal ? state.seasonals[state.season]! : 0;
  const base = prevLevel + (shape.trend ? state.trend : 0);
  state.level = p.alpha * (y - s) + (1 - p.alpha) * base;
  if (shape.trend) state.trend = p.beta * (state.level - prevLevel) + (1 - p.beta) * state.trend;
  if (shape.seasonal) {
    state.seasonals[state.season] = p.gamma * (y - state.level) + (1 - p.gamma) * s;
    state.season = (state.season + 1) % state.seasonals.length;
  }
  return error;
}

/**
 * Multiplier of the one-step error variance for an `h`-step forecast:
 * 1 + Σ_{j<h} c_j², where c_j is how much a one-step error made j steps before the target
 * still moves the forecast (error-correction form of the recurrences above).
 */
export function varianceFactor(shape: ModelShape, p: SmoothingParams, period: number, h: number): number {
  let sum = 1;
  for (let j = 1; j < h; j++) {
    let c = p.alpha;
    if (shape.trend) c += j * p.alpha * p.beta;
    if (shape.seasonal && period > 0 && j % period === 0) c += p.gamma * (1 - p.alpha);
    sum += c * c;
  }
  return sum;
}

export function copyState(s: SmoothingState): SmoothingState {
  return { level: s.level, trend: s.trend, seasonals: [...s.seasonals], season: s.season };
}
