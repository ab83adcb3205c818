/**
 * Range functions answered from rollup tiers (docs/prometheus.md, "Long ranges"): a window's
 * summary (src/metrics/rollup/segment.ts) holds what these functions need — count, sum, min,
 * max, first and last sample, counter resets, a quantile sketch — so a window of a year is a few
 * hundred stored rows instead of millions of samples. The store decides per window whether its
 * rows give the answer its raw samples give (the rest is evaluated from raw samples as before).
 */
import type { NumSeg } from "../metrics/rollup/segment.ts";
import type { Expr, MatrixSelector } from "./ast.ts";
import { extrapolate } from "./range-functions.ts";
import type { StreamPlan } from "./plan.ts";

/** Range functions a window summary answers: within float rounding (quantile_over_time within the sketch's 1 %). */
export const TIER_FUNCTIONS: ReadonlySet<string> = new Set([
  "rate",
  "increase",
  "delta",
  "sum_over_time",
  "avg_over_time",
  "count_over_time",
  "min_over_time",
  "max_over_time",
  "last_over_time",
  "present_over_time",
  "quantile_over_time",
]);

/** What a query asks of a selector's series when its windows may come from tiers. */
export interface WindowHint {
  fn: string;
  /** Window length, ms: windows are (end − range, end]. */
  range: number;
  /** The window ends, one per step. */
  ends: Float64Array;
  /** φ of quantile_over_time. */
  param: number;
}

/** Per step: the value from tiers where `mask` is 1 (`has` 0: no value there); raw samples answer the other steps. */
export interface TierSteps {
  vals: Float64Array;
  has: Uint8Array;
  mask: Uint8Array;
}

/**
 * The hint for a plan whose expression is `fn(selector[range])` (optionally under an
 * aggregation) with fn in TIER_FUNCTIONS; undefined otherwise. `ends` are the selector's
 * evaluation times.
 */
export function windowHint(plan: StreamPlan, ends: (sel: MatrixSelector["selector"]) => Float64Array): WindowHint | undefined {
  const e: Expr = plan.expr;
  if (e.kind !== "call" || !TIER_FUNCTIONS.has(e.name)) return undefined;
  const m = e.args.at(-1);
  if (m?.kind !== "matrix") return undefined;
  let param = 0;
  if (e.name === "quantile_over_time") {
    const p = e.args[0];
    if (p?.kind !== "number") return undefined;
    param = p.value;
  }
  return { fn: e.name, range: m.range, ends: ends(m.selector), param };
}

/** fn over the window (end − range, end] whose samples `s` summarizes; undefined: no value. */
export function windowValue(h: WindowHint, s: NumSeg, end: number): number | undefined {
  const n = s.n;
  if (n === 0) return undefined;
  switch (h.fn) {
    case "count_over_time":
      return n;
    case "sum_over_time":
      return s.sum;
    case "avg_over_time":
      return s.sum / n;
    case "min_over_time":
      return s.min;
    case "max_over_time":
      return s.max;
    case "last_over_time":
      return s.lastV;
    case "present_over_time":
      return 1;
    case "quantile_over_time":
      return s.sketch ? s.sketch.quantile(h.param, s.min, s.max) : undefined;
  }
  if (n < 2) return undefined;
  const counter = h.fn !== "delta";
  const result = s.lastV - s.firstV + (counter ? s.rs : 0);
  return extrapolate(result, n, s.firstT, s.lastT, s.firstV, end - h.range, end, h.range, counter, h.fn === "rate");
}
