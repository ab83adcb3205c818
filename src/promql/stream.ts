/**
 * Series-by-series evaluation (see plan.ts): the selected series are read in small batches,
 * each batch goes through the ordinary evaluator, and its results are kept (or folded into
 * their aggregation groups) before the next batch is read. Only one batch of raw samples is
 * in memory at a time, and the per-series code is the evaluator's own, so results are the same
 * as evaluating everything at once.
 */
import { type EvalTimes, Evaluator } from "./engine.ts";
import { GroupAggregator } from "./group-aggregator.ts";
import { dropName, labelsKey } from "./labels.ts";
import type { StreamPlan } from "./plan.ts";
import { RANGE_FUNCTIONS } from "./range-functions.ts";
import { ExecutionError, type RawSeries, type ReadBuffers, type SeriesRef, type StepSeries, type Value } from "./values.ts";

/** Samples read per batch: large enough to amortise the evaluator's set-up, small in memory. */
const BATCH_SAMPLES = 65_536;

/** Prometheus' --query.max-samples: the samples a query may load. */
export class SampleBudget {
  private used = 0;

  constructor(private readonly max: number) {}

  take(n: number): void {
    this.used += n;
    if (this.used > this.max) throw new ExecutionError("query processing would load too many samples into memory in query execution");
  }
}

/**
 * True when no two series have the same labels once the metric name is dropped: then no
 * per-series step can make two results collide, and series can be evaluated apart. (When they
 * can collide, Prometheus merges them or fails on overlap; that needs all of them at once.)
 */
export function independent(refs: readonly SeriesRef[]): boolean {
  const seen = new Set<string>();
  for (const r of refs) {
    const k = labelsKey(dropName(r.labels));
    if (seen.has(k)) return false;
    seen.add(k);
  }
  return true;
}

/**
 * Buffers for the raw samples of one batch, handed out again for the next batch (whose
 * evaluation starts only after the previous batch's results were folded or copied).
 */
class BatchBuffers {
  private readonly pool: ArrayBuffer[] = [];
  private next = 0;

  readonly take: ReadBuffers = (bytes) => {
    let b = this.pool[this.next];
    if (!b || b.byteLength < bytes) this.pool[this.next] = b = new ArrayBuffer(bytes);
    this.next++;
    return b;
  };

  /** The batch is done with: its buffers may be handed out again. */
  reuse(): void {
    this.next = 0;
  }
}

/** Evaluates a plan over its selector's series, batch by batch. */
export async function evalStreaming(plan: StreamPlan, refs: readonly SeriesRef[], t: EvalTimes, budget: SampleBudget): Promise<Value> {
  const agg = plan.agg ? new GroupAggregator(plan.agg, t.times.length) : undefined;
  const out: StepSeries[] = [];
  let batch: RawSeries[] = [];
  let samples = 0;
  const e = plan.expr;
  // A range function of the selector folded straight into its groups: one scratch series for
  // all (the selected series never share labels here, so no merge is needed; see independent).
  const direct = agg && e.kind === "call" && e.name in RANGE_FUNCTIONS && e.args.length === 1 && e.args[0]!.kind === "matrix" ? e.args[0] : undefined;
  const buffers = new BatchBuffers();
  const flush = () => {
    if (batch.length === 0) return;
    const ev = new Evaluator(t, new Map([[plan.use.sel, batch]]));
    if (direct && e.kind === "call") ev.eachRange(e, direct, undefined, false, (s) => agg!.add(s));
    else {
      for (const s of ev.evalVector(e)) {
        if (agg) agg.add(s);
        else out.push(s);
      }
    }
    batch = [];
    samples = 0;
    buffers.reuse();
  };
  for (const ref of refs) {
    const s = await ref.read(buffers.take);
    if (!s || s.ts.length === 0) continue;
    budget.take(s.ts.length);
    batch.push(s);
    samples += s.ts.length;
    if (samples >= BATCH_SAMPLES) flush();
  }
  flush();
  return { type: "vector", series: agg ? agg.result() : out };
}
