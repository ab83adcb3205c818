import type { ValueType } from "./ast.ts";

/** Argument and result types of a PromQL function, for the parser's checks. */
export interface Signature {
  args: ValueType[];
  /** Trailing arguments that may be left out; -1: the last one repeats any number of times. */
  optional?: number;
  returns: ValueType;
}

const v2v: Signature = { args: ["vector"], returns: "vector" };
const m2v: Signature = { args: ["matrix"], returns: "vector" };
const dateFn: Signature = { args: ["vector"], optional: 1, returns: "vector" };

/** The functions Outpost evaluates (a subset of Prometheus'; names as Prometheus spells them). */
export const SIGNATURES: Record<string, Signature> = {
  abs: v2v,
  absent: v2v,
  absent_over_time: m2v,
  acos: v2v,
  acosh: v2v,
  asin: v2v,
  asinh: v2v,
  atan: v2v,
  atanh: v2v,
  avg_over_time: m2v,
  ceil: v2v,
  changes: m2v,
  clamp: { args: ["vector", "scalar", "scalar"], returns: "vector" },
  clamp_max: { args: ["vector", "scalar"], returns: "vector" },
  clamp_min: { args: ["vector", "scalar"], returns: "vector" },
  cos: v2v,
  cosh: v2v,
  count_over_time: m2v,
  day_of_month: dateFn,
  day_of_week: dateFn,
  day_of_year: dateFn,
  days_in_month: dateFn,
  deg: v2v,
  delta: m2v,
  deriv: m2v,
  exp: v2v,
  floor: v2v,
  histogram_quantile: { args: ["scalar", "vector"], returns: "vector" },
  hour: dateFn,
  idelta: m2v,
  increase: m2v,
  irate: m2v,
  label_join: { args: ["vector", "string", "string", "string"], optional: -1, returns: "vector" },
  label_replace: { args: ["vector", "string", "string", "string", "string"], returns: "vector" },
  last_over_time: m2v,
  ln: v2v,
  log10: v2v,
  log2: v2v,
  max_over_time: m2v,
  min_over_time: m2v,
  minute: dateFn,
  month: dateFn,
  pi: { args: [], returns: "scalar" },
  predict_linear: { args: ["matrix", "scalar"], returns: "vector" },
  present_over_time: m2v,
  quantile_over_time: { args: ["scalar", "matrix"], returns: "vector" },
  rad: v2v,
  rate: m2v,
  resets: m2v,
  round: { args: ["vector", "scalar"], optional: 1, returns: "vector" },
  scalar: { args: ["vector"], returns: "scalar" },
  sgn: v2v,
  sin: v2v,
  sinh: v2v,
  sort: v2v,
  sort_desc: v2v,
  sqrt: v2v,
  stddev_over_time: m2v,
  stdvar_over_time: m2v,
  sum_over_time: m2v,
  tan: v2v,
  tanh: v2v,
  time: { args: [], returns: "scalar" },
  timestamp: v2v,
  vector: { args: ["scalar"], returns: "vector" },
  year: dateFn,
};
