/**
 * Running a query: read the samples its selectors need (the only asynchronous part) and
 * evaluate over the steps — series by series when the expression allows (plan.ts, stream.ts),
 * else all selectors first. Results are in the shapes of Prometheus' query API.
 */
import type { AtModifier, Expr, VectorSelector } from "./ast.ts";
import { type EvalTimes, Evaluator } from "./engine.ts";
import { compareLabels, type Labels } from "./labels.ts";
import type { Offload } from "./offload.ts";
import { type SelectorUse, selectors, streamPlan } from "./plan.ts";
import { withReadArena } from "../runtime/read-arenas.ts";
import type { FloatArena } from "../runtime/float-arena.ts";
import { evalStreaming, independent, SampleBudget } from "./stream.ts";
import { type WindowHint, windowHint } from "./tier-windows.ts";
import { typeOf } from "./types.ts";
import { ExecutionError, InvalidQueryError, type RawSeries, readAll, type SeriesRef, type SeriesSource, type StepSeries, type Value } from "./values.ts";

export const DEFAULT_LOOKBACK_MS = 300_000;
/** Prometheus' --query.max-samples default. */
export const DEFAULT_MAX_SAMPLES = 50_000_000;
/** Points per series Prometheus allows in a range query. */
export const MAX_POINTS = 11_000;

export interface QueryOptions {
  lookbackMs?: number;
  maxSamples?: number;
  /** false: always load every selector's samples first (the reference the tests compare with). */
  streaming?: boolean;
  /** Where half of a large series-by-series query may be evaluated (another thread). */
  offload?: Offload;
}

export interface MatrixSeries {
  labels: Labels;
  /** ms */
  ts: Float64Array;
  vals: Float64Array;
}

export type QueryResult =
  | { resultType: "matrix"; result: MatrixSeries[] }
  | { resultType: "vector"; result: { labels: Labels; t: number; v: number }[] }
  | { resultType: "scalar"; result: { t: number; v: number } }
  | { resultType: "string"; result: { t: number; v: string } };

const atMs = (at: AtModifier, t: EvalTimes) => (at === "start" ? t.start : at === "end" ? t.end : at);

/**
 * The span [from, to] (ms) a selector reads for an evaluation over `t`: the steps' span, moved
 * back over the windows of the subqueries it is inside, then its own lookback or range.
 */
function span(use: SelectorUse, t: EvalTimes): [number, number] {
  let from = t.start;
  let to = t.end;
  for (const sq of use.within ?? []) {
    if (sq.at !== undefined) from = to = atMs(sq.at, t);
    from -= sq.offset + sq.range;
    to -= sq.offset;
  }
  const { sel, range } = use;
  if (sel.at !== undefined) from = to = atMs(sel.at, t);
  return [from - sel.offset - (range || t.lookback), to - sel.offset];
}

async function find(use: SelectorUse, source: SeriesSource, t: EvalTimes, windows?: WindowHint): Promise<SeriesRef[]> {
  const [from, to] = span(use, t);
  return source.select(use.sel.matchers, from, to, windows);
}

async function readInto(refs: readonly SeriesRef[], budget: SampleBudget, arena: FloatArena): Promise<RawSeries[]> {
  const series = await readAll(refs, arena);
  for (const s of series) budget.take(s.ts.length);
  return series;
}

/**
 * Evaluates `e` over `t`: series by series when its shape allows (plan.ts), else with every
 * selector's samples loaded first.
 */
async function evaluate(e: Expr, source: SeriesSource, t: EvalTimes, o: QueryOptions): Promise<Value> {
  // The samples are read into an arena taken back once evaluated: a value never holds a view
  // of them (a range vector's samples are copied out, Evaluator.rangeSelect).
  return withReadArena((arena) => evaluateIn(e, source, t, o, arena));
}

async function evaluateIn(e: Expr, source: SeriesSource, t: EvalTimes, o: QueryOptions, arena: FloatArena): Promise<Value> {
  const budget = new SampleBudget(o.maxSamples ?? DEFAULT_MAX_SAMPLES);
  const plan = o.streaming === false ? undefined : streamPlan(e);
  const data = new Map<VectorSelector, RawSeries[]>();
  if (plan) {
    // A range function of the selector over long windows: the store may answer them from its rollup tiers.
    const windows = o.streaming === false ? undefined : windowHint(plan, (sel) => new Evaluator(t, data).selectorTimes(sel));
    const refs = await find(plan.use, source, t, windows);
    // Windows from tiers are cheap: no second thread (it reads raw samples).
    if (independent(refs)) return evalStreaming(plan, refs, t, budget, arena, refs.some((r) => r.tiered) ? undefined : o.offload);
    data.set(plan.use.sel, await readInto(refs, budget, arena));
  } else {
    for (const use of selectors(e)) data.set(use.sel, await readInto(await find(use, source, t), budget, arena));
  }
  return new Evaluator(t, data, budget).eval(e);
}

function stepTimes(start: number, end: number, step: number): Float64Array {
  const n = step > 0 ? Math.floor((end - start) / step) + 1 : 1;
  const times = new Float64Array(n);
  for (let i = 0; i < n; i++) times[i] = start + i * step;
  return times;
}

/** An instant query at `time` (ms). */
export async function instantQuery(expr: Expr, source: SeriesSource, time: number, o: QueryOptions = {}): Promise<QueryResult> {
  const lookback = o.lookbackMs ?? DEFAULT_LOOKBACK_MS;
  const v = await evaluate(expr, source, { times: stepTimes(time, time, 0), start: time, end: time, lookback }, o);
  switch (v.type) {
    case "scalar":
      return { resultType: "scalar", result: { t: time, v: v.vals[0]! } };
    case "string":
      return { resultType: "string", result: { t: time, v: v.value } };
    case "matrix":
      return {
        resultType: "matrix",
        result: v.series.map((s) => ({ labels: s.labels, ts: s.ts, vals: s.vals })).sort((a, b) => compareLabels(a.labels, b.labels)),
      };
    case "vector":
      return { resultType: "vector", result: v.series.filter((s) => s.has[0]).map((s) => ({ labels: s.labels, t: time, v: s.vals[0]! })) };
  }
}

/** A range query over [start, end] every `step` (all ms); series sorted by labels. */
export async function rangeQuery(expr: Expr, source: SeriesSource, start: number, end: number, step: number, o: QueryOptions = {}): Promise<QueryResult> {
  const t = typeOf(expr);
  if (t !== "scalar" && t !== "vector") {
    throw new InvalidQueryError(`invalid expression type "${t === "matrix" ? "range vector" : "string"}" for range query, must be Scalar or instant Vector`);
  }
  const lookback = o.lookbackMs ?? DEFAULT_LOOKBACK_MS;
  const times = stepTimes(start, end, step);
  const v = await evaluate(expr, source, { times, start, end, lookback }, o);
  if (v.type === "scalar") return { resultType: "matrix", result: [{ labels: [], ts: times, vals: v.vals }] };
  if (v.type !== "vector") throw new ExecutionError("range query did not evaluate to a vector");
  const result: MatrixSeries[] = [];
  for (const s of v.series) {
    const m = presentPoints(s, times);
    if (m.ts.length) result.push(m);
  }
  return { resultType: "matrix", result: result.sort((a, b) => compareLabels(a.labels, b.labels)) };
}

/**
 * The steps where a series has a value, as a matrix series. When they are one run of steps
 * (the usual case: a range function has no value before its window fills), the result views
 * the step times, so the JSON writer encodes those once for all series (result-json.ts).
 */
function presentPoints(s: StepSeries, times: Float64Array): MatrixSeries {
  const first = s.has.indexOf(1);
  if (first < 0) return { labels: s.labels, ts: new Float64Array(0), vals: new Float64Array(0) };
  const gap = s.has.indexOf(0, first);
  const end = gap < 0 ? times.length : gap;
  if (gap < 0 || s.has.indexOf(1, gap) < 0) {
    if (first === 0 && end === times.length) return { labels: s.labels, ts: times, vals: s.vals };
    return { labels: s.labels, ts: times.subarray(first, end), vals: s.vals.subarray(first, end) };
  }
  let n = 0;
  for (let i = 0; i < times.length; i++) n += s.has[i]!;
  const ts = new Float64Array(n);
  const vals = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < times.length; i++) {
    if (!s.has[i]) continue;
    ts[k] = times[i]!;
    vals[k++] = s.vals[i]!;
  }
  return { labels: s.labels, ts, vals };
}
