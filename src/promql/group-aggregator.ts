/**
 * Aggregations that fold their input one series at a time (sum, avg, min, max, count, group,
 * stddev, stdvar), so a query can feed series as it reads them instead of holding all of them.
 * Each step's value is folded in input order with the same operations as Prometheus' per-step
 * reduction, so the result does not depend on how the input was delivered.
 */
import type { Aggregate, AggregateOp } from "./ast.ts";
import { MeanAccumulator, VarianceAccumulator } from "./kahan.ts";
import { dropLabels, keepOnly, labelsKey, type Labels, METRIC_NAME } from "./labels.ts";
import { newStepSeries, type StepSeries } from "./values.ts";

/** The per-step state of one group. */
interface Fold {
  add(s: StepSeries): void;
  /** The group's values; has[i] where some member had a sample at step i. */
  finish(): StepSeries;
}

class SumFold implements Fold {
  private readonly r: StepSeries;
  private readonly c: Float64Array;

  constructor(labels: Labels, n: number) {
    this.r = newStepSeries(labels, n);
    this.c = new Float64Array(n);
  }

  add(s: StepSeries): void {
    const { r, c } = this;
    const rv = r.vals;
    const rh = r.has;
    const sv = s.vals;
    const sh = s.has;
    // kahanAdd inlined on the arrays (the hottest loop of a sum over many series): the same
    // operations in the same order, without a state object per step.
    for (let i = 0; i < rv.length; i++) {
      if (!sh[i]) continue;
      const v = sv[i]!;
      if (!rh[i]) {
        rv[i] = v;
        rh[i] = 1;
        continue;
      }
      const sum = rv[i]!;
      const t = sum + v;
      if (t === Number.POSITIVE_INFINITY || t === Number.NEGATIVE_INFINITY) c[i] = 0;
      else if (Math.abs(sum) >= Math.abs(v)) c[i] = c[i]! + (sum - t + v);
      else c[i] = c[i]! + (v - t + sum);
      rv[i] = t;
    }
  }

  finish(): StepSeries {
    const { r, c } = this;
    for (let i = 0; i < r.vals.length; i++) if (r.has[i]) r.vals[i] = r.vals[i]! + c[i]!;
    return r;
  }
}

/** min, max, count, group: a running value per step. */
class RunningFold implements Fold {
  private readonly r: StepSeries;

  constructor(
    labels: Labels,
    n: number,
    private readonly step: (acc: number, v: number) => number,
    private readonly first: (v: number) => number,
  ) {
    this.r = newStepSeries(labels, n);
  }

  add(s: StepSeries): void {
    const r = this.r;
    for (let i = 0; i < r.vals.length; i++) {
      if (!s.has[i]) continue;
      if (r.has[i]) r.vals[i] = this.step(r.vals[i]!, s.vals[i]!);
      else {
        r.vals[i] = this.first(s.vals[i]!);
        r.has[i] = 1;
      }
    }
  }

  finish(): StepSeries {
    return this.r;
  }
}

/** avg, stddev, stdvar: an accumulator object per step that has a sample. */
class AccumulatorFold<A extends { add(v: number): void }> implements Fold {
  private readonly accs: (A | undefined)[];

  constructor(
    private readonly labels: Labels,
    private readonly n: number,
    private readonly create: () => A,
    private readonly value: (a: A) => number,
  ) {
    this.accs = new Array(n);
  }

  add(s: StepSeries): void {
    for (let i = 0; i < this.n; i++) {
      if (!s.has[i]) continue;
      let a = this.accs[i];
      if (!a) this.accs[i] = a = this.create();
      a.add(s.vals[i]!);
    }
  }

  finish(): StepSeries {
    const r = newStepSeries(this.labels, this.n);
    for (let i = 0; i < this.n; i++) {
      const a = this.accs[i];
      if (!a) continue;
      r.vals[i] = this.value(a);
      r.has[i] = 1;
    }
    return r;
  }
}

const same = (v: number) => v;

const FOLDS: Partial<Record<AggregateOp, (labels: Labels, n: number) => Fold>> = {
  sum: (l, n) => new SumFold(l, n),
  min: (l, n) => new RunningFold(l, n, (m, v) => (v < m || Number.isNaN(m) ? v : m), same),
  max: (l, n) => new RunningFold(l, n, (m, v) => (v > m || Number.isNaN(m) ? v : m), same),
  count: (l, n) => new RunningFold(l, n, (c) => c + 1, () => 1),
  group: (l, n) => new RunningFold(l, n, () => 1, () => 1),
  avg: (l, n) => new AccumulatorFold(l, n, () => new MeanAccumulator(), (a) => a.value()),
  stddev: (l, n) => new AccumulatorFold(l, n, () => new VarianceAccumulator(), (a) => Math.sqrt(a.variance())),
  stdvar: (l, n) => new AccumulatorFold(l, n, () => new VarianceAccumulator(), (a) => a.variance()),
};

/** True for the aggregations GroupAggregator computes. */
export const isFoldable = (op: AggregateOp): boolean => op in FOLDS;

/** The labels of the group a series belongs to under `by`/`without`. */
export function groupLabels(e: Aggregate, labels: Labels, names: ReadonlySet<string>): Labels {
  return e.without ? dropLabels(labels, names) : keepOnly(labels, names);
}

/** The grouping labels of an aggregation (`without` always drops the metric name too). */
export function groupingNames(e: Aggregate): Set<string> {
  const names = new Set(e.grouping);
  if (e.without) names.add(METRIC_NAME);
  return names;
}

/** Folds series into their groups as they come; groups are listed in order of first member. */
export class GroupAggregator {
  private readonly names: Set<string>;
  private readonly groups = new Map<string, Fold>();
  private readonly make: (labels: Labels, n: number) => Fold;

  constructor(
    private readonly e: Aggregate,
    private readonly n: number,
  ) {
    const make = FOLDS[e.op];
    if (!make) throw new Error(`aggregation ${e.op} does not fold series by series`);
    this.make = make;
    this.names = groupingNames(e);
  }

  add(s: StepSeries): void {
    const labels = groupLabels(this.e, s.labels, this.names);
    const key = labelsKey(labels);
    let g = this.groups.get(key);
    if (!g) this.groups.set(key, (g = this.make(labels, this.n)));
    g.add(s);
  }

  /** The groups that have a value at some step. */
  result(): StepSeries[] {
    const out: StepSeries[] = [];
    for (const g of this.groups.values()) {
      const r = g.finish();
      if (r.has.includes(1)) out.push(r);
    }
    return out;
  }
}
