import { initialState } from "./initial-state.ts";
import { MODEL_SHAPES, type ModelName, minPoints, warmUp } from "./models.ts";
import { minimize } from "./nelder-mead.ts";
import { observe, type SmoothingParams, type SmoothingState } from "./smoothing.ts";

/** Running sums of one-step errors; the forecast band and the drift strategies read them. */
export interface ErrorSums {
  count: number;
  sumSquares: number;
  sumAbs: number;
}

/** A model with its fitted parameters and its state after the last learned point. Plain JSON. */
export interface FittedModel {
  name: ModelName;
  params: SmoothingParams;
  /** Season length; 0 for the non-seasonal models. */
  period: number;
  state: SmoothingState;
  /** One-step errors since the model was fitted (fit residuals, then each learned point). */
  residuals: ErrorSums;
}

export interface Fit {
  model: FittedModel;
  /** One-step errors of the fitted model for the points after its warm-up, in order. */
  errors: number[];
}

/** Parameter bounds: the open interval (0, 1), kept away from the ends that freeze a component. */
const LOWER = 1e-4;
const UPPER = 1 - 1e-4;
/** Coarse grid that seeds the simplex, so that a poor local minimum is unlikely. */
const GRID = [0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98];

function toParams(x: number[]): SmoothingParams {
  return { alpha: x[0]!, beta: x[1] ?? 0, gamma: x[2] ?? 0 };
}

/** Runs the model over `values` from its initial state; returns the final state and the errors. */
export function run(name: ModelName, params: SmoothingParams, values: number[], period = 0): { state: SmoothingState; errors: number[] } {
  const shape = MODEL_SHAPES[name];
  const state = initialState(name, values, period);
  const errors: number[] = [];
  for (let t = warmUp(name, period, values.length); t < values.length; t++) errors.push(observe(shape, params, state, values[t]!));
  return { state, errors };
}

function sumOfSquares(name: ModelName, params: SmoothingParams, values: number[], period: number): number {
  const shape = MODEL_SHAPES[name];
  const state = initialState(name, values, period);
  let sse = 0;
  for (let t = warmUp(name, period, values.length); t < values.length; t++) {
    const e = observe(shape, params, state, values[t]!);
    sse += e * e;
  }
  return sse;
}

function gridPoints(dims: number): number[][] {
  let points: number[][] = [[]];
  for (let d = 0; d < dims; d++) points = points.flatMap((p) => GRID.map((g) => [...p, g]));
  return points;
}

export function errorSums(errors: number[]): ErrorSums {
  let sumSquares = 0;
  let sumAbs = 0;
  for (const e of errors) {
    sumSquares += e * e;
    sumAbs += Math.abs(e);
  }
  return { count: errors.length, sumSquares, sumAbs };
}

/**
 * Fits the smoothing parameters by minimising the sum of squared one-step errors: best point
 * of a coarse grid, then Nelder-Mead from there. Undefined when there are too few points.
 */
export function fitModel(name: ModelName, values: number[], period = 0): Fit | undefined {
  const seasonal = MODEL_SHAPES[name].seasonal;
  if (seasonal && period < 2) return undefined;
  const m = seasonal ? period : 0;
  if (values.length < minPoints(name, m)) return undefined;
  const dims = MODEL_SHAPES[name].paramCount;
  const objective = (x: number[]) => sumOfSquares(name, toParams(x), values, m);

  let start = gridPoints(dims)[0]!;
  let startValue = Number.POSITIVE_INFINITY;
  for (const x of gridPoints(dims)) {
    const v = objective(x);
    if (v < startValue) {
      start = x;
      startValue = v;
    }
  }
  const best = minimize(objective, start, { lower: LOWER, upper: UPPER, step: 0.05 });
  const params = toParams(best.value <= startValue ? best.x : start);
  const { state, errors } = run(name, params, values, m);
  return { model: { name, params, period: m, state, residuals: errorSums(errors) }, errors };
}
