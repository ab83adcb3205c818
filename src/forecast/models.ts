/** The three exponential smoothing models of the forecasting interface. */
export const MODEL_NAMES = ["SimpleExponentialSmoothing", "DoubleExponentialSmoothing", "TripleExponentialSmoothing"] as const;
export type ModelName = (typeof MODEL_NAMES)[number];

/** Which components a model carries; the recurrences in smoothing.ts read these. */
export interface ModelShape {
  trend: boolean;
  seasonal: boolean;
  /** Smoothing parameters fitted by the optimiser: the k of the information criteria. */
  paramCount: number;
}

export const MODEL_SHAPES: Record<ModelName, ModelShape> = {
  SimpleExponentialSmoothing: { trend: false, seasonal: false, paramCount: 1 },
  DoubleExponentialSmoothing: { trend: true, seasonal: false, paramCount: 2 },
  TripleExponentialSmoothing: { trend: true, seasonal: true, paramCount: 3 },
};

/** Most points the double model's initial trend is estimated from. */
export const MAX_TREND_WARM_UP = 10;

/**
 * Points the initial state consumes out of `n` (they get no one-step forecast): one for the
 * level; for level and trend a quarter of the series, 2 to 10 points, because a trend taken
 * from two noisy points is mostly noise and takes long to unlearn; two seasons for the
 * seasonal model.
 */
export function warmUp(name: ModelName, period = 0, n = 0): number {
  if (name === "SimpleExponentialSmoothing") return 1;
  if (name === "DoubleExponentialSmoothing") return Math.min(MAX_TREND_WARM_UP, Math.max(2, Math.floor(n / 4)));
  return 2 * period;
}

/**
 * One-step errors a model must have beyond its warm-up before it is worth fitting: a few for
 * the non-seasonal models, a whole season for the seasonal one, so that the models are
 * compared on a season they did not start from (on part of a season, a trend can look as
 * good as the season).
 */
export function minEvaluated(name: ModelName, period = 0): number {
  return name === "TripleExponentialSmoothing" ? Math.max(4, period) : 2;
}

/** Fewest points a model can be fitted on. */
export function minPoints(name: ModelName, period = 0): number {
  // With this few points the double model's warm-up is its minimum of two.
  return warmUp(name, period, 0) + minEvaluated(name, period);
}
