/** Binary operators between scalars and instant vectors, with Prometheus' vector matching. */
import { type Binary, type BinaryOp, COMPARISON_OPS, type VectorMatching } from "./ast.ts";
import type { Evaluator } from "./engine.ts";
import { dropLabels, dropName, formatLabels, keepOnly, labelsKey, type Labels, labelValue, matchKey, withLabel } from "./labels.ts";
import { ExecutionError, newStepSeries, type StepSeries, type Value } from "./values.ts";

function arithmetic(op: BinaryOp, l: number, r: number): number {
  switch (op) {
    case "+":
      return l + r;
    case "-":
      return l - r;
    case "*":
      return l * r;
    case "/":
      return l / r;
    case "%":
      return l % r;
    case "^":
      // Go's math.Pow: 1^y is 1 for every y, and (-1)^±Inf is 1.
      if (l === 1 || (l === -1 && (r === Number.POSITIVE_INFINITY || r === Number.NEGATIVE_INFINITY))) return 1;
      return l ** r;
    case "atan2":
      return Math.atan2(l, r);
  }
  throw new ExecutionError(`operator "${op}" is not an arithmetic operator`);
}

function compare(op: BinaryOp, l: number, r: number): boolean {
  switch (op) {
    case "==":
      return l === r;
    case "!=":
      return l !== r;
    case ">":
      return l > r;
    case "<":
      return l < r;
    case ">=":
      return l >= r;
    case "<=":
      return l <= r;
  }
  throw new ExecutionError(`operator "${op}" is not a comparison operator`);
}

/** The value of `l op r`, or undefined when a filtering comparison drops the sample. */
function apply(e: Binary, l: number, r: number, kept: number): number | undefined {
  if (!COMPARISON_OPS.has(e.op)) return arithmetic(e.op, l, r);
  const ok = compare(e.op, l, r);
  if (e.returnBool) return ok ? 1 : 0;
  return ok ? kept : undefined;
}

/** Arithmetic and bool comparisons drop the metric name; filtering comparisons keep it. */
const dropsName = (e: Binary) => !COMPARISON_OPS.has(e.op) || e.returnBool;

export function binary(ev: Evaluator, e: Binary): Value {
  const lhs = ev.eval(e.lhs);
  const rhs = ev.eval(e.rhs);
  if (lhs.type === "scalar" && rhs.type === "scalar") {
    return { type: "scalar", vals: lhs.vals.map((l, i) => apply(e, l, rhs.vals[i]!, l) ?? Number.NaN) };
  }
  if (lhs.type === "vector" && rhs.type === "scalar") return { type: "vector", series: vectorScalar(ev, e, lhs.series, rhs.vals, false) };
  if (lhs.type === "scalar" && rhs.type === "vector") return { type: "vector", series: vectorScalar(ev, e, rhs.series, lhs.vals, true) };
  if (lhs.type !== "vector" || rhs.type !== "vector") throw new ExecutionError("binary expression must contain only scalar and instant vector types");
  const m = e.matching!;
  if (e.op === "and" || e.op === "unless") return { type: "vector", series: filterSet(ev, lhs.series, rhs.series, m, e.op === "and") };
  if (e.op === "or") return { type: "vector", series: ev.mergeSameLabels([...lhs.series, ...filterSet(ev, rhs.series, lhs.series, m, false)]) };
  return { type: "vector", series: vectorVector(ev, e, lhs.series, rhs.series, m) };
}

function vectorScalar(ev: Evaluator, e: Binary, vec: StepSeries[], scalar: Float64Array, scalarLeft: boolean): StepSeries[] {
  const drop = dropsName(e);
  const out: StepSeries[] = [];
  for (const s of vec) {
    const r = newStepSeries(drop ? dropName(s.labels) : s.labels, ev.n);
    let any = false;
    for (let i = 0; i < ev.n; i++) {
      if (!s.has[i]) continue;
      const v = s.vals[i]!;
      // The vector's own value is the one a filtering comparison keeps, whatever its side.
      const res = scalarLeft ? apply(e, scalar[i]!, v, v) : apply(e, v, scalar[i]!, v);
      if (res === undefined) continue;
      r.vals[i] = res;
      r.has[i] = 1;
      any = true;
    }
    if (any) out.push(r);
  }
  return drop ? ev.mergeSameLabels(out) : out;
}

/** `and` (keep) or `unless` (!keep): the samples of `a` whose match group has a sample in `b` at that step. */
function filterSet(ev: Evaluator, a: StepSeries[], b: StepSeries[], m: VectorMatching, keep: boolean): StepSeries[] {
  const names = new Set(m.labels);
  const present = new Map<string, Uint8Array>();
  for (const s of b) {
    const key = matchKey(s.labels, m.on, names);
    let p = present.get(key);
    if (!p) present.set(key, (p = new Uint8Array(ev.n)));
    for (let i = 0; i < ev.n; i++) if (s.has[i]) p[i] = 1;
  }
  const out: StepSeries[] = [];
  for (const s of a) {
    const p = present.get(matchKey(s.labels, m.on, names));
    const r = newStepSeries(s.labels, ev.n);
    let any = false;
    for (let i = 0; i < ev.n; i++) {
      if (!s.has[i] || (p?.[i] === 1) !== keep) continue;
      r.vals[i] = s.vals[i]!;
      r.has[i] = 1;
      any = true;
    }
    if (any) out.push(r);
  }
  return out;
}

function resultLabels(e: Binary, m: VectorMatching, many: Labels, one: Labels, names: ReadonlySet<string>): Labels {
  let l = dropsName(e) ? dropName(many) : many;
  if (m.card === "one-to-one") l = m.on ? keepOnly(l, names) : dropLabels(l, names);
  for (const name of m.include) l = withLabel(l, name, labelValue(one, name));
  return l;
}

function vectorVector(ev: Evaluator, e: Binary, lhs: StepSeries[], rhs: StepSeries[], m: VectorMatching): StepSeries[] {
  const names = new Set(m.labels);
  const swapped = m.card === "one-to-many";
  const [manySide, oneSide] = swapped ? [rhs, lhs] : [lhs, rhs];
  const oneBySig = new Map<string, StepSeries[]>();
  for (const s of oneSide) {
    const key = matchKey(s.labels, m.on, names);
    const list = oneBySig.get(key);
    if (list) list.push(s);
    else oneBySig.set(key, [s]);
  }
  const matchedMany = new Map<string, Uint8Array>();
  const outByKey = new Map<string, StepSeries>();
  const labelCache = new Map<StepSeries, Map<StepSeries, Labels>>();
  for (const s of manySide) {
    const sig = matchKey(s.labels, m.on, names);
    const candidates = oneBySig.get(sig);
    if (!candidates) continue;
    for (let i = 0; i < ev.n; i++) {
      if (!s.has[i]) continue;
      let one: StepSeries | undefined;
      for (const c of candidates) {
        if (!c.has[i]) continue;
        if (one) {
          const side = swapped ? "left" : "right";
          throw new ExecutionError(
            `found duplicate series for the match group ${formatLabels(m.on ? keepOnly(one.labels, names) : dropLabels(dropName(one.labels), names))} on the ${side} hand-side of the operation: [${formatLabels(one.labels)}, ${formatLabels(c.labels)}];many-to-many matching not allowed: matching labels must be unique on one side`,
          );
        }
        one = c;
      }
      if (!one) continue;
      if (m.card === "one-to-one") {
        let seen = matchedMany.get(sig);
        if (!seen) matchedMany.set(sig, (seen = new Uint8Array(ev.n)));
        if (seen[i]) throw new ExecutionError("multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)");
        seen[i] = 1;
      }
      const [l, r] = swapped ? [one.vals[i]!, s.vals[i]!] : [s.vals[i]!, one.vals[i]!];
      const value = apply(e, l, r, l);
      if (value === undefined) continue;
      let byOne = labelCache.get(s);
      if (!byOne) labelCache.set(s, (byOne = new Map()));
      let labels = byOne.get(one);
      if (!labels) byOne.set(one, (labels = resultLabels(e, m, s.labels, one.labels, names)));
      const key = labelsKey(labels);
      let out = outByKey.get(key);
      if (!out) outByKey.set(key, (out = newStepSeries(labels, ev.n)));
      if (out.has[i]) throw new ExecutionError("multiple matches for labels: grouping labels must ensure unique matches");
      out.vals[i] = value;
      out.has[i] = 1;
    }
  }
  return [...outByKey.values()];
}
