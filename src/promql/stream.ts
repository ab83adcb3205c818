/**
 * Series-by-series evaluation (see plan.ts): the selected series are read in small batches,
 * each batch goes through the ordinary evaluator, and its results are kept (or folded into
 * their aggregation groups) before the next batch is read. Only one batch of raw samples is
 * in memory at a time, and the per-series code is the evaluator's own, so results are the same
 * as evaluating everything at once.
 */
import { type EvalTimes, Evaluator } from "./engine.ts";
import type { FloatArena } from "../runtime/float-arena.ts";
import { releaseBuffer } from "../runtime/release-buffer.ts";
import { GroupAggregator } from "./group-aggregator.ts";
import { dropName, labelsKey } from "./labels.ts";
import type { Offload } from "./offload.ts";
import type { StreamPlan } from "./plan.ts";
import { RANGE_FUNCTIONS } from "./range-functions.ts";
import { BATCH_SAMPLES, ExecutionError, type RawSeries, type SeriesRef, type StepSeries, type Value } from "./values.ts";


/** Series a query selects before part of them is evaluated in another thread (Offload). */
export const OFFLOAD_MIN_SERIES = 200;
/**
 * Most step values the other thread may hand back for an aggregation (its per-series results
 * are held until folded: 9 bytes a value): it is handed no more series than that.
 */
const OFFLOAD_MAX_VALUES = 8_000_000;

/** Prometheus' --query.max-samples: the samples a query may load. */
export class SampleBudget {
  private used = 0;

  constructor(readonly max: number) {}

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

/** Evaluates a plan over its selector's series, batch by batch, reading each batch into `arena` (reset after it). */
export async function evalStreaming(plan: StreamPlan, refs: readonly SeriesRef[], t: EvalTimes, budget: SampleBudget, arena: FloatArena, offload?: Offload): Promise<Value> {
  const agg = plan.agg ? new GroupAggregator(plan.agg, t.times.length) : undefined;
  const out: StepSeries[] = [];
  let batch: RawSeries[] = [];
  let samples = 0;
  const e = plan.expr;
  // A range function of the selector folded straight into its groups: one scratch series for
  // all (the selected series never share labels here, so no merge is needed; see independent).
  const direct = agg && e.kind === "call" && e.name in RANGE_FUNCTIONS && e.args.length === 1 && e.args[0]!.kind === "matrix" ? e.args[0] : undefined;
  const keep = (s: StepSeries) => (agg ? agg.add(s) : out.push(s));
  const flush = () => {
    if (batch.length === 0) return;
    const ev = new Evaluator(t, new Map([[plan.use.sel, batch]]));
    if (direct && e.kind === "call") ev.eachRange(e, direct, undefined, false, keep);
    else for (const s of ev.evalVector(e)) keep(s);
    batch = [];
    samples = 0;
    arena.reset();
  };
  const evalHere = async (part: readonly SeriesRef[]) => {
    for (const ref of part) {
      const s = await ref.read(arena);
      if (!s || (s.ts.length === 0 && !s.steps)) continue;
      budget.take(s.ts.length);
      batch.push(s);
      samples += s.ts.length;
      if (samples >= BATCH_SAMPLES) flush();
    }
    flush();
  };
  // The other thread takes slices from the end while this one does them from the start; then
  // this one does those handed over but not started, and folds the other's results last, i.e.
  // in series order, as on one thread.
  const job =
    offload && refs.length >= OFFLOAD_MIN_SERIES
      ? await offload.start(e, refs, t, agg ? Math.floor(OFFLOAD_MAX_VALUES / Math.max(1, t.times.length)) : refs.length)
      : undefined;
  if (!job) {
    await evalHere(refs);
    return { type: "vector", series: agg ? agg.result() : out };
  }
  const size = job.sliceSize;
  let next = 0;
  while (next < job.from) {
    await evalHere(refs.slice(next * size, (next + 1) * size));
    next++;
    await job.feed(next);
  }
  const k = job.finish();
  await evalHere(refs.slice(next * size, k * size));
  const far = k * size < refs.length ? await job.result : { slices: 0, series: [], samples: 0 };
  if (far && far.slices === Math.ceil(refs.length / size) - k) {
    budget.take(far.samples);
    for (const s of far.series) keep(s);
    // Folded into their groups (a fold copies what it needs): the other thread's results are
    // garbage, in buffers of their own (transferred), handed back now rather than at the next
    // full collection (issue 28). Only after all are folded: a buffer may back several series.
    if (agg) {
      for (const s of far.series) {
        releaseBuffer(s.vals, 0);
        releaseBuffer(s.has, 0);
      }
    }
  } else await evalHere(refs.slice(k * size));
  return { type: "vector", series: agg ? agg.result() : out };
}
