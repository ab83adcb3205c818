/**
 * The evaluator: every node is evaluated over all steps of the query at once (columns per
 * series), as Prometheus' range evaluation does. Raw samples are fetched beforehand (query.ts).
 */
import { type AtModifier, type Call, DEFAULT_SUBQUERY_STEP_MS, type Expr, type RangeArg, type SubqueryExpr, type VectorSelector } from "./ast.ts";
import { aggregate } from "./aggregate.ts";
import { binary } from "./binary.ts";
import { callFunction } from "./functions.ts";
import { dropName, type Labels, labelsKey } from "./labels.ts";
import { extrapolatedRateSteps, KEEPS_NAME, PREFIX_COUNTS, prefixCounts, RANGE_FUNCTIONS, STEP_LOOP, type Window } from "./range-functions.ts";
import type { TierSteps } from "./tier-windows.ts";
import { ExecutionError, newStepSeries, type RawSeries, type StepSeries, type Value } from "./values.ts";

export interface EvalTimes {
  /** Evaluation timestamps, ms, ascending. */
  times: Float64Array;
  start: number;
  end: number;
  /** How far back an instant selector looks for a sample, ms. */
  lookback: number;
}

/** The steps answered from rollup tiers put over those evaluated from samples; true when some step has a value. */
function overlaySteps(t: TierSteps, r: StepSeries): boolean {
  let any = false;
  for (let i = 0; i < t.mask.length; i++) {
    if (t.mask[i]) {
      r.has[i] = t.has[i]!;
      r.vals[i] = t.vals[i]!;
    }
    if (r.has[i]) any = true;
  }
  return any;
}

/** The query's sample budget (Prometheus' --query.max-samples), charged for subquery results. */
export interface SampleCounter {
  readonly max: number;
  take(n: number): void;
}

/** The series a range function reads, and where each step's window (end − range, end] ends. */
interface RangeInput {
  series: RawSeries[];
  ends: Float64Array;
  range: number;
}

export class Evaluator {
  readonly n: number;

  constructor(
    readonly t: EvalTimes,
    private readonly data: ReadonlyMap<VectorSelector, RawSeries[]>,
    private readonly samples?: SampleCounter,
  ) {
    this.n = t.times.length;
  }

  eval(e: Expr): Value {
    switch (e.kind) {
      case "number":
        return { type: "scalar", vals: new Float64Array(this.n).fill(e.value) };
      case "string":
        return { type: "string", value: e.value };
      case "vector":
        return { type: "vector", series: this.instantSelect(e, false) };
      case "matrix":
      case "subquery":
        return { type: "matrix", series: this.rangeSelect(e) };
      case "call":
        return callFunction(this, e);
      case "aggregate":
        return aggregate(this, e);
      case "binary":
        return binary(this, e);
      case "unary": {
        const v = this.eval(e.expr);
        if (e.op === "+") return v;
        if (v.type === "scalar") return { type: "scalar", vals: v.vals.map((x) => -x) };
        if (v.type !== "vector") throw new ExecutionError("unary minus on a non-numeric value");
        return { type: "vector", series: this.mergeSameLabels(v.series.map((s) => ({ labels: dropName(s.labels), vals: s.vals.map((x) => -x), has: s.has.slice() }))) };
      }
    }
  }

  evalVector(e: Expr): StepSeries[] {
    const v = this.eval(e);
    if (v.type !== "vector") throw new ExecutionError(`expected an instant vector, got ${v.type}`);
    return v.series;
  }

  evalScalar(e: Expr): Float64Array {
    const v = this.eval(e);
    if (v.type !== "scalar") throw new ExecutionError(`expected a scalar, got ${v.type}`);
    return v.vals;
  }

  /** The time a selector reads at for step i: its @ time or the step's, minus its offset. */
  selectorTime(sel: VectorSelector, i: number): number {
    return this.atTime(sel.at, i) - sel.offset;
  }

  private atTime(at: AtModifier | undefined, i: number): number {
    if (at === undefined) return this.t.times[i]!;
    if (at === "start") return this.t.start;
    if (at === "end") return this.t.end;
    return at;
  }

  series(sel: VectorSelector): RawSeries[] {
    return this.data.get(sel) ?? [];
  }

  /** The times a selector reads at, one per step. */
  selectorTimes(sel: VectorSelector): Float64Array {
    const out = new Float64Array(this.n);
    for (let i = 0; i < this.n; i++) out[i] = this.selectorTime(sel, i);
    return out;
  }

  /**
   * The latest sample in (t − lookback, t] at each step, unless a staleness marker came after
   * it (by t). With `timestamps`, the sample's time in seconds instead of its value (timestamp()).
   */
  instantSelect(sel: VectorSelector, timestamps: boolean): StepSeries[] {
    const out: StepSeries[] = [];
    const lookback = this.t.lookback;
    const times = this.selectorTimes(sel);
    for (const s of this.series(sel)) {
      const r = newStepSeries(s.labels, this.n);
      let j = 0;
      let any = false;
      const len = s.ts.length;
      const stale = s.stale;
      let k = 0;
      for (let i = 0; i < this.n; i++) {
        const t = times[i]!;
        if (j > 0 && s.ts[j - 1]! > t) j = k = 0;
        while (j < len && s.ts[j]! <= t) j++;
        if (stale) {
          // k: markers at or before t; the latest of them ends the sample before it.
          if (k > 0 && stale[k - 1]! > t) k = 0;
          while (k < stale.length && stale[k]! <= t) k++;
          if (k > 0 && j > 0 && stale[k - 1]! > s.ts[j - 1]!) continue;
        }
        if (j > 0 && s.ts[j - 1]! > t - lookback) {
          r.vals[i] = timestamps ? s.ts[j - 1]! / 1000 : s.vals[j - 1]!;
          r.has[i] = 1;
          any = true;
        }
      }
      if (any) out.push(r);
    }
    return out;
  }

  /** A range selector or subquery evaluated at a single time (an instant query's range-vector result). */
  private rangeSelect(m: RangeArg): RawSeries[] {
    const input = this.rangeInput(m);
    const end = input.ends[0]!;
    const start = end - input.range;
    const out: RawSeries[] = [];
    for (const s of input.series) {
      let lo = 0;
      while (lo < s.ts.length && s.ts[lo]! <= start) lo++;
      let hi = lo;
      while (hi < s.ts.length && s.ts[hi]! <= end) hi++;
      if (hi > lo) out.push({ labels: s.labels, ts: s.ts.slice(lo, hi), vals: s.vals.slice(lo, hi) });
    }
    return out;
  }

  /**
   * Applies a range function to every series of its range-vector argument, at every step,
   * over the samples in (t − range, t]: one pass per series, the window's two ends only move
   * forward while the steps do (O(samples + steps) plus the function's own work).
   */
  applyRange(call: Call, m: RangeArg, param?: Float64Array): StepSeries[] {
    const out: StepSeries[] = [];
    this.eachRange(call, m, param, true, (s) => out.push(s));
    return KEEPS_NAME.has(call.name) ? out : this.mergeSameLabels(out);
  }

  /**
   * applyRange without merging same-labelled results: `sink` gets each series that has a value
   * at some step. With fresh = false that is one scratch series reused for the next (the sink
   * copies what it keeps, as GroupAggregator.add does), which saves an allocation per series.
   */
  eachRange(call: Call, m: RangeArg, param: Float64Array | undefined, fresh: boolean, sink: (s: StepSeries) => void): void {
    const fn = RANGE_FUNCTIONS[call.name]!;
    const counted = PREFIX_COUNTS[call.name];
    const keepName = KEEPS_NAME.has(call.name);
    const stepLoop = STEP_LOOP.has(call.name);
    const { series, ends, range } = this.rangeInput(m);
    const w: Window = { ts: new Float64Array(0), vals: new Float64Array(0), lo: 0, hi: 0, start: 0, end: 0, range, param: 0, evalTime: 0, counts: new Int32Array(0) };
    let scratch: StepSeries | undefined;
    const target = (labels: Labels): StepSeries => {
      if (fresh) return newStepSeries(labels, this.n);
      if (!scratch) return (scratch = newStepSeries(labels, this.n));
      scratch.has.fill(0);
      return (scratch = { labels, vals: scratch.vals, has: scratch.has });
    };
    for (const s of series) {
      const len = s.ts.length;
      if (stepLoop) {
        const r = target(keepName ? s.labels : dropName(s.labels));
        const any = extrapolatedRateSteps(s.ts, s.vals, ends, range, call.name, r);
        if (s.steps ? overlaySteps(s.steps, r) : any) sink(r);
        continue;
      }
      if (counted) {
        if (w.counts.length < len) w.counts = new Int32Array(Math.max(len, w.counts.length * 2));
        prefixCounts(s.vals, counted, w.counts);
      }
      w.ts = s.ts;
      w.vals = s.vals;
      let r: StepSeries | undefined;
      let lo = 0;
      let hi = 0;
      for (let i = 0; i < this.n; i++) {
        const end = ends[i]!;
        const start = end - range;
        if (hi > 0 && s.ts[hi - 1]! > end) lo = hi = 0;
        while (hi < len && s.ts[hi]! <= end) hi++;
        while (lo < hi && s.ts[lo]! <= start) lo++;
        if (hi === lo) continue;
        w.lo = lo;
        w.hi = hi;
        w.start = start;
        w.end = end;
        w.evalTime = this.t.times[i]!;
        if (param) w.param = param[i]!;
        const v = fn(w);
        if (v === undefined) continue;
        r ??= target(keepName ? s.labels : dropName(s.labels));
        r.vals[i] = v;
        r.has[i] = 1;
      }
      if (s.steps) {
        r ??= target(keepName ? s.labels : dropName(s.labels));
        if (!overlaySteps(s.steps, r)) continue;
      }
      if (r) sink(r);
    }
  }

  private rangeInput(m: RangeArg): RangeInput {
    if (m.kind === "matrix") return { series: this.series(m.selector), ends: this.selectorTimes(m.selector), range: m.range };
    return this.subquery(m);
  }

  /**
   * A subquery, as Prometheus evaluates it: its expression once over the steps that are
   * multiples of its step (from the epoch), from the first after the earliest window's start to
   * the latest window's end; each outer step's window (end − range, end] then takes the
   * results that fall in it. `@ start()`/`end()` inside still mean the query's start and end.
   */
  private subquery(sq: SubqueryExpr): RangeInput {
    const ends = new Float64Array(this.n);
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < this.n; i++) {
      const end = this.atTime(sq.at, i) - sq.offset;
      ends[i] = end;
      if (end - sq.range < lo) lo = end - sq.range;
      if (end > hi) hi = end;
    }
    const step = sq.step ?? DEFAULT_SUBQUERY_STEP_MS;
    // Prometheus' alignment, with Go's integer division (towards zero).
    let first = step * Math.trunc(lo / step);
    if (first <= lo) first += step;
    const count = first > hi ? 0 : Math.floor((hi - first) / step) + 1;
    // Each inner series holds a value slot per inner step: more steps than the query may load
    // samples would not fit even one series.
    if (this.samples && count > this.samples.max) this.samples.take(count);
    const times = new Float64Array(count);
    for (let k = 0; k < count; k++) times[k] = first + k * step;
    const inner = new Evaluator({ times, start: this.t.start, end: this.t.end, lookback: this.t.lookback }, this.data, this.samples);
    const series: RawSeries[] = [];
    let taken = 0;
    for (const s of count > 0 ? inner.evalVector(sq.expr) : []) {
      let k = 0;
      for (let j = 0; j < count; j++) k += s.has[j]!;
      if (k === 0) continue;
      const ts = new Float64Array(k);
      const vals = new Float64Array(k);
      k = 0;
      for (let j = 0; j < count; j++) {
        if (!s.has[j]) continue;
        ts[k] = times[j]!;
        vals[k++] = s.vals[j]!;
      }
      series.push({ labels: s.labels, ts, vals });
      taken += k;
    }
    this.samples?.take(taken);
    return { series, ends, range: sq.range };
  }

  /**
   * Series that have the same labels after a label change are one series, as long as they
   * never both have a sample at one step; otherwise the result is ambiguous, an error in
   * Prometheus too.
   */
  mergeSameLabels(series: StepSeries[]): StepSeries[] {
    const byKey = new Map<string, StepSeries>();
    const out: StepSeries[] = [];
    for (const s of series) {
      const key = labelsKey(s.labels);
      const prev = byKey.get(key);
      if (!prev) {
        byKey.set(key, s);
        out.push(s);
        continue;
      }
      for (let i = 0; i < this.n; i++) {
        if (!s.has[i]) continue;
        if (prev.has[i]) throw new ExecutionError("vector cannot contain metrics with the same labelset");
        prev.vals[i] = s.vals[i]!;
        prev.has[i] = 1;
      }
    }
    return out;
  }
}
