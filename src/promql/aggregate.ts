/** Aggregation operators with by/without: the folding ones in group-aggregator.ts, the rest here. */
import type { Aggregate } from "./ast.ts";
import type { Evaluator } from "./engine.ts";
import { formatFloatPlain } from "./format.ts";
import { GroupAggregator, groupingNames, groupLabels } from "./group-aggregator.ts";
import { quantile } from "./kahan.ts";
import { labelsKey, type Labels, withLabel } from "./labels.ts";
import { LABEL_NAME_RE } from "./literals.ts";
import { ExecutionError, newStepSeries, type StepSeries, type Value } from "./values.ts";

interface Group {
  labels: Labels;
  members: StepSeries[];
}

function groups(e: Aggregate, input: StepSeries[]): Group[] {
  const names = groupingNames(e);
  const byKey = new Map<string, Group>();
  for (const s of input) {
    const labels = groupLabels(e, s.labels, names);
    const key = labelsKey(labels);
    let g = byKey.get(key);
    if (!g) byKey.set(key, (g = { labels, members: [] }));
    g.members.push(s);
  }
  return [...byKey.values()];
}

export function aggregate(ev: Evaluator, e: Aggregate): Value {
  const input = ev.evalVector(e.expr);
  if (e.op === "topk" || e.op === "bottomk") return { type: "vector", series: topk(ev, e, input, ev.evalScalar(e.param!)) };
  if (e.op === "count_values") return { type: "vector", series: countValues(ev, e, input, e.param?.kind === "string" ? e.param.value : "") };
  if (e.op === "quantile") return { type: "vector", series: quantiles(ev, e, input, ev.evalScalar(e.param!)) };
  const agg = new GroupAggregator(e, ev.n);
  for (const s of input) agg.add(s);
  return { type: "vector", series: agg.result() };
}

/** quantile needs every value of a step at once. */
function quantiles(ev: Evaluator, e: Aggregate, input: StepSeries[], q: Float64Array): StepSeries[] {
  const out: StepSeries[] = [];
  const values: number[] = [];
  for (const g of groups(e, input)) {
    const r = newStepSeries(g.labels, ev.n);
    for (let i = 0; i < ev.n; i++) {
      values.length = 0;
      for (const s of g.members) if (s.has[i]) values.push(s.vals[i]!);
      if (values.length === 0) continue;
      r.vals[i] = quantile(q[i]!, values);
      r.has[i] = 1;
    }
    if (r.has.includes(1)) out.push(r);
  }
  return out;
}

/** The k largest (topk) or smallest (bottomk) per group and step; NaN ranks last in both. */
function topk(ev: Evaluator, e: Aggregate, input: StepSeries[], k: Float64Array): StepSeries[] {
  const bottom = e.op === "bottomk";
  const chosen = input.map((s) => newStepSeries(s.labels, ev.n));
  const index = new Map(input.map((s, i) => [s, i]));
  const better = (a: number, b: number) => (Number.isNaN(b) ? !Number.isNaN(a) : bottom ? a < b : a > b);
  const ordered: StepSeries[] = [];
  for (const g of groups(e, input)) {
    const picked: number[] = [];
    for (let i = 0; i < ev.n; i++) {
      const kv = k[i]!;
      if (!Number.isFinite(kv) || Math.abs(kv) > Number.MAX_SAFE_INTEGER) throw new ExecutionError(`Scalar value ${formatFloatPlain(kv)} overflows int64`);
      const count = Math.trunc(kv);
      if (count < 1) continue;
      const present = g.members.filter((s) => s.has[i]);
      present.sort((a, b) => (better(a.vals[i]!, b.vals[i]!) ? -1 : better(b.vals[i]!, a.vals[i]!) ? 1 : 0));
      for (const s of present.slice(0, count)) {
        const j = index.get(s)!;
        chosen[j]!.vals[i] = s.vals[i]!;
        chosen[j]!.has[i] = 1;
        if (ev.n === 1) picked.push(j);
      }
    }
    for (const j of picked) ordered.push(chosen[j]!);
  }
  // An instant query lists each group's picks in rank order, as Prometheus does.
  return ev.n === 1 ? ordered : chosen.filter((s) => s.has.includes(1));
}

function countValues(ev: Evaluator, e: Aggregate, input: StepSeries[], label: string): StepSeries[] {
  if (!LABEL_NAME_RE.test(label)) throw new ExecutionError(`invalid label name "${label}"`);
  const byKey = new Map<string, StepSeries>();
  for (const g of groups(e, input)) {
    for (let i = 0; i < ev.n; i++) {
      for (const s of g.members) {
        if (!s.has[i]) continue;
        const labels = withLabel(g.labels, label, formatFloatPlain(s.vals[i]!));
        const key = labelsKey(labels);
        let r = byKey.get(key);
        if (!r) byKey.set(key, (r = newStepSeries(labels, ev.n)));
        r.vals[i] = r.has[i] ? r.vals[i]! + 1 : 1;
        r.has[i] = 1;
      }
    }
  }
  return [...byKey.values()];
}
