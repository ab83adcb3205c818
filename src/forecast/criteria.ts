export const INFORMATION_CRITERIA = ["AIC", "AICc", "BIC"] as const;
export type InformationCriterion = (typeof INFORMATION_CRITERIA)[number];

/**
 * Information criterion of a model with `k` fitted parameters whose `n` one-step errors have
 * mean square `mse` (Gaussian likelihood up to a constant shared by all models on the same
 * points): AIC = n·ln(mse) + 2k, AICc adds 2k(k+1)/(n−k−1), BIC = n·ln(mse) + k·ln(n).
 * Lower is better; AICc is infinite when n ≤ k + 1.
 */
export function informationCriterion(ic: InformationCriterion, mse: number, n: number, k: number): number {
  const fit = n * Math.log(mse);
  if (ic === "AIC") return fit + 2 * k;
  if (ic === "BIC") return fit + k * Math.log(n);
  if (n - k - 1 <= 0) return Number.POSITIVE_INFINITY;
  return fit + 2 * k + (2 * k * (k + 1)) / (n - k - 1);
}
