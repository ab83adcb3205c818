import type { ErrorSums } from "./fit.ts";

/**
 * When to re-select the model instead of only updating its state (concept drift):
 * - PeriodicIntervalStrategy: after every `period` learned points;
 * - ErrorChangeStrategy: when the mean error (MAE or MSE) of the one-step forecasts since the
 *   last selection differs from the model's error at selection by more than `percentageChange` %.
 */
export type ConceptDriftStrategy =
  | { strategy: "PeriodicIntervalStrategy"; period: number }
  | { strategy: "ErrorChangeStrategy"; percentageChange: number; statistics: "MAE" | "MSE" };

export const DEFAULT_DRIFT_STRATEGY: ConceptDriftStrategy = { strategy: "PeriodicIntervalStrategy", period: 25 };

/** Fewest new errors before the error-change strategy judges: one surprise is not a drift. */
export const MIN_ERRORS_FOR_CHANGE = 5;

/** What the strategies look at; reset at every selection. */
export interface DriftTracker {
  /** Points learned since the last selection. */
  sinceSelection: number;
  /** The selected model's one-step errors on the points it was selected on. */
  atSelection: ErrorSums;
  /** One-step errors of the points learned since. */
  since: ErrorSums;
}

const emptySums = (): ErrorSums => ({ count: 0, sumSquares: 0, sumAbs: 0 });

export function newTracker(atSelection: ErrorSums): DriftTracker {
  return { sinceSelection: 0, atSelection: { ...atSelection }, since: emptySums() };
}

/** Records one learned point with its one-step error. */
export function track(t: DriftTracker, error: number): void {
  t.sinceSelection++;
  t.since.count++;
  t.since.sumSquares += error * error;
  t.since.sumAbs += Math.abs(error);
}

function meanError(s: ErrorSums, statistics: "MAE" | "MSE"): number {
  if (s.count === 0) return 0;
  return (statistics === "MAE" ? s.sumAbs : s.sumSquares) / s.count;
}

export function shouldReselect(strategy: ConceptDriftStrategy, t: DriftTracker): boolean {
  if (strategy.strategy === "PeriodicIntervalStrategy") return t.sinceSelection >= strategy.period;
  if (t.since.count < MIN_ERRORS_FOR_CHANGE) return false;
  const before = meanError(t.atSelection, strategy.statistics);
  const now = meanError(t.since, strategy.statistics);
  return Math.abs(now - before) > (strategy.percentageChange / 100) * before;
}
