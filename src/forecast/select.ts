import { type InformationCriterion, informationCriterion } from "./criteria.ts";
import { type Fit, type FittedModel, fitModel } from "./fit.ts";
import { MODEL_NAMES, MODEL_SHAPES, type ModelName, minPoints } from "./models.ts";
import { detectPeriod } from "./period.ts";

export interface SelectOptions {
  ic: InformationCriterion;
  /** Only this model is fitted. */
  modelToUse?: ModelName;
  /** Season length for the seasonal model (0: none); detected from the data when absent. */
  period?: number;
}

/** How one candidate scored on the points all candidates were compared on. */
export interface CandidateScore {
  name: ModelName;
  period: number;
  /** Number of one-step errors compared. */
  n: number;
  k: number;
  mse: number;
  score: number;
}

export interface Selection {
  model: FittedModel;
  /** One-step errors of the chosen model after its warm-up. */
  errors: number[];
  /** Every candidate that could be fitted, best first. */
  scores: CandidateScore[];
}

/**
 * Index of the candidate with the lowest criterion; ties go to the earlier (simpler) one.
 * Undefined when no candidate has a finite score.
 */
export function chooseByCriterion(candidates: { mse: number; n: number; k: number }[], ic: InformationCriterion): number | undefined {
  let best: number | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  candidates.forEach((c, i) => {
    const s = informationCriterion(ic, c.mse, c.n, c.k);
    if (s < bestScore) {
      best = i;
      bestScore = s;
    }
  });
  return best;
}

/** Longest season the seasonal model can be fitted with on n points. */
function longestFittablePeriod(n: number): number {
  let m = Math.floor(n / 2);
  while (m >= 2 && minPoints("TripleExponentialSmoothing", m) > n) m--;
  return m;
}

/**
 * Fits every candidate model to `values` and keeps the one with the lowest information
 * criterion. The models are compared on the same points, those after the longest warm-up,
 * so that every compared error is a genuine forecast from the model's initial state onward;
 * each model's parameters are still fitted on all the points it can forecast.
 */
export function selectModel(values: number[], opts: SelectOptions): Selection | undefined {
  const names = opts.modelToUse ? [opts.modelToUse] : [...MODEL_NAMES];
  const fits: Fit[] = [];
  for (const name of names) {
    let period = 0;
    if (MODEL_SHAPES[name].seasonal) {
      period = opts.period ?? detectPeriod(values, { maxPeriod: longestFittablePeriod(values.length) }) ?? 0;
      if (period < 2) continue;
    }
    const fit = fitModel(name, values, period);
    if (fit) fits.push(fit);
  }
  if (fits.length === 0) return undefined;

  const compared = Math.min(...fits.map((f) => f.errors.length));
  const meanSquare = values.reduce((a, v) => a + v * v, 0) / values.length;
  // A perfect fit would give ln(0); a floor far below any real noise keeps scores finite.
  const floor = 1e-12 * meanSquare + 1e-300;
  const scores: CandidateScore[] = fits.map((f) => {
    const tail = f.errors.slice(f.errors.length - compared);
    const mse = Math.max(floor, tail.reduce((a, e) => a + e * e, 0) / compared);
    const k = MODEL_SHAPES[f.model.name].paramCount;
    return { name: f.model.name, period: f.model.period, n: compared, k, mse, score: informationCriterion(opts.ic, mse, compared, k) };
  });
  const chosen = chooseByCriterion(scores, opts.ic);
  if (chosen === undefined) return undefined;
  const ranked = scores.map((s, i) => ({ s, i })).sort((a, b) => a.s.score - b.s.score || a.i - b.i);
  return { model: fits[chosen]!.model, errors: fits[chosen]!.errors, scores: ranked.map((r) => r.s) };
}
