/** Function calls: range functions go to the evaluator's window loop, the rest are here. */
import type { Call, Expr, RangeArg, VectorSelector } from "./ast.ts";
import type { Evaluator } from "./engine.ts";
import { histogramQuantile } from "./histogram.ts";
import { labelJoin, labelReplace } from "./label-functions.ts";
import { dropName, labelsFromRecord, type Labels } from "./labels.ts";
import { RANGE_FUNCTIONS } from "./range-functions.ts";
import { ExecutionError, newStepSeries, type StepSeries, type Value } from "./values.ts";

const MATH: Record<string, (x: number) => number> = {
  abs: Math.abs,
  ceil: Math.ceil,
  floor: Math.floor,
  exp: Math.exp,
  sqrt: Math.sqrt,
  ln: Math.log,
  log2: Math.log2,
  log10: Math.log10,
  sgn: (x) => (x > 0 ? 1 : x < 0 ? -1 : x),
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  asinh: Math.asinh,
  acosh: Math.acosh,
  atanh: Math.atanh,
  deg: (x) => (x * 180) / Math.PI,
  rad: (x) => (x * Math.PI) / 180,
};

const DATE: Record<string, (d: Date) => number> = {
  minute: (d) => d.getUTCMinutes(),
  hour: (d) => d.getUTCHours(),
  day_of_week: (d) => d.getUTCDay(),
  day_of_month: (d) => d.getUTCDate(),
  day_of_year: (d) => Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1,
  days_in_month: (d) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate(),
  month: (d) => d.getUTCMonth() + 1,
  year: (d) => d.getUTCFullYear(),
};

const PER_VALUE = new Set(["clamp", "clamp_min", "clamp_max", "round", "timestamp"]);

/**
 * True for functions whose result series each come from one series of their first argument
 * (further arguments being scalars): abs(x), round(x, 5), hour(x), timestamp(x)…
 */
export function isPerSeries(call: Call): boolean {
  const { name, args } = call;
  return args.length > 0 && (name in MATH || name in DATE || PER_VALUE.has(name));
}

/** Applies f to every present value, dropping the metric name (Prometheus' simple functions). */
function mapValues(ev: Evaluator, input: StepSeries[], f: (v: number, i: number) => number | undefined): StepSeries[] {
  const out: StepSeries[] = [];
  for (const s of input) {
    const r = newStepSeries(dropName(s.labels), ev.n);
    let any = false;
    for (let i = 0; i < ev.n; i++) {
      if (!s.has[i]) continue;
      const v = f(s.vals[i]!, i);
      if (v === undefined) continue;
      r.vals[i] = v;
      r.has[i] = 1;
      any = true;
    }
    if (any) out.push(r);
  }
  return ev.mergeSameLabels(out);
}

const vector = (series: StepSeries[]): Value => ({ type: "vector", series });
const str = (e: Expr) => (e.kind === "string" ? e.value : "");

export function callFunction(ev: Evaluator, call: Call): Value {
  const { name, args } = call;
  if (name in RANGE_FUNCTIONS) {
    if (name === "quantile_over_time") return vector(ev.applyRange(call, args[1] as RangeArg, ev.evalScalar(args[0]!)));
    if (name === "predict_linear") return vector(ev.applyRange(call, args[0] as RangeArg, ev.evalScalar(args[1]!)));
    return vector(ev.applyRange(call, args[0] as RangeArg));
  }
  const math = MATH[name];
  if (math) return vector(mapValues(ev, ev.evalVector(args[0]!), math));
  const date = DATE[name];
  if (date) {
    if (args.length === 0) return vector([constantSeries(ev, [], (i) => date(new Date(ev.t.times[i]!)))]);
    return vector(mapValues(ev, ev.evalVector(args[0]!), (v) => (Number.isFinite(v) ? date(new Date(Math.trunc(v) * 1000)) : Number.NaN)));
  }
  switch (name) {
    case "time":
      return { type: "scalar", vals: ev.t.times.map((t) => t / 1000) };
    case "pi":
      return { type: "scalar", vals: new Float64Array(ev.n).fill(Math.PI) };
    case "vector": {
      const s = ev.evalScalar(args[0]!);
      return vector([constantSeries(ev, [], (i) => s[i]!)]);
    }
    case "scalar": {
      const input = ev.evalVector(args[0]!);
      const vals = new Float64Array(ev.n).fill(Number.NaN);
      for (let i = 0; i < ev.n; i++) {
        let count = 0;
        for (const s of input) if (s.has[i] && count++ === 0) vals[i] = s.vals[i]!;
        if (count !== 1) vals[i] = Number.NaN;
      }
      return { type: "scalar", vals };
    }
    case "timestamp": {
      const a = args[0]!;
      if (a.kind === "vector") return vector(ev.mergeSameLabels(ev.instantSelect(a, true).map((s) => ({ ...s, labels: dropName(s.labels) }))));
      return vector(mapValues(ev, ev.evalVector(a), (_v, i) => ev.t.times[i]! / 1000));
    }
    case "clamp":
    case "clamp_min":
    case "clamp_max": {
      const lo = name === "clamp_max" ? undefined : ev.evalScalar(args[1]!);
      const hi = name === "clamp" ? ev.evalScalar(args[2]!) : name === "clamp_max" ? ev.evalScalar(args[1]!) : undefined;
      return vector(
        mapValues(ev, ev.evalVector(args[0]!), (v, i) => {
          const min = lo ? lo[i]! : Number.NEGATIVE_INFINITY;
          const max = hi ? hi[i]! : Number.POSITIVE_INFINITY;
          return max < min ? undefined : Math.max(min, Math.min(max, v));
        }),
      );
    }
    case "round": {
      const to = args[1] ? ev.evalScalar(args[1]) : undefined;
      return vector(
        mapValues(ev, ev.evalVector(args[0]!), (v, i) => {
          const inv = 1 / (to ? to[i]! : 1);
          return Math.floor(v * inv + 0.5) / inv;
        }),
      );
    }
    case "sort":
    case "sort_desc":
      return vector(sortByValue(ev.evalVector(args[0]!), name === "sort_desc"));
    case "label_replace":
      return vector(ev.mergeSameLabels(labelReplace(ev.evalVector(args[0]!), str(args[1]!), str(args[2]!), str(args[3]!), str(args[4]!))));
    case "label_join":
      return vector(ev.mergeSameLabels(labelJoin(ev.evalVector(args[0]!), str(args[1]!), str(args[2]!), args.slice(3).map(str))));
    case "histogram_quantile":
      return vector(histogramQuantile(ev.evalScalar(args[0]!), ev.evalVector(args[1]!), ev.n));
    case "absent":
      return vector(absent(ev, ev.evalVector(args[0]!), args[0]!));
    case "absent_over_time": {
      const m = args[0] as RangeArg;
      const present = ev.applyRange({ kind: "call", name: "present_over_time", args }, m);
      // Of a subquery, Prometheus gives no labels.
      return vector(absent(ev, present, m.kind === "matrix" ? m.selector : m));
    }
  }
  throw new ExecutionError(`function "${name}" has a signature but no evaluator`);
}

function constantSeries(ev: Evaluator, labels: Labels, f: (i: number) => number): StepSeries {
  const r = newStepSeries(labels, ev.n);
  for (let i = 0; i < ev.n; i++) r.vals[i] = f(i);
  r.has.fill(1);
  return r;
}

/** Ordering matters only for an instant query's single step; NaN sorts last either way. */
function sortByValue(input: StepSeries[], desc: boolean): StepSeries[] {
  const v = (s: StepSeries) => s.vals[0]!;
  return [...input].sort((a, b) => {
    if (Number.isNaN(v(a))) return Number.isNaN(v(b)) ? 0 : 1;
    if (Number.isNaN(v(b))) return -1;
    return desc ? v(b) - v(a) : v(a) - v(b);
  });
}

/**
 * 1 at the steps where the input is empty, labelled with the argument's equality matchers
 * (when it is a selector and each such label is matched once).
 */
function absent(ev: Evaluator, input: StepSeries[], arg: Expr): StepSeries[] {
  const r = newStepSeries(absentLabels(arg), ev.n);
  let any = false;
  for (let i = 0; i < ev.n; i++) {
    if (input.some((s) => s.has[i])) continue;
    r.vals[i] = 1;
    r.has[i] = 1;
    any = true;
  }
  return any ? [r] : [];
}

function absentLabels(arg: Expr): Labels {
  const sel: VectorSelector | undefined = arg.kind === "vector" ? arg : arg.kind === "matrix" ? arg.selector : undefined;
  if (!sel) return [];
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const m of sel.matchers) {
    if (m.name === "__name__") continue;
    if (m.op === "=" && !seen.has(m.name)) {
      out[m.name] = m.value;
      seen.add(m.name);
    } else delete out[m.name];
  }
  return labelsFromRecord(out);
}
