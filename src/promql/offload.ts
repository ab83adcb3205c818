/**
 * Evaluating part of a series-by-series query in another thread (a worker): the caller hands
 * over the per-series expression and the later part of the selected series, evaluates the
 * earlier part itself meanwhile (and takes back what the other thread has not started when it
 * is done), then folds the other thread's per-series results in series order — so every
 * aggregation sees its inputs in the same order as on one thread, and results are
 * bit-identical (a sum's rounding depends on its order).
 */
import type { Expr, VectorSelector } from "./ast.ts";
import { acquireReadArena, releaseReadArena } from "../runtime/read-arenas.ts";
import { type EvalTimes, Evaluator } from "./engine.ts";
import { selectors } from "./plan.ts";
import { BATCH_SAMPLES, type RawSeries, type SeriesRef, type StepSeries } from "./values.ts";

/** What the other thread evaluated: its slices' per-series results, in series order, and the samples read. */
export interface OffloadResult {
  slices: number;
  series: StepSeries[];
  samples: number;
}

/**
 * A job shared with the other thread: the refs in slices of `sliceSize` series. The caller
 * evaluates slices from the first on; the other thread is handed slices from the last one
 * backwards, as it takes them, so the two meet wherever their speeds make them meet.
 */
export interface OffloadJob {
  readonly sliceSize: number;
  /** The first slice handed over: the caller evaluates the slices before it. Falls as feed hands over more. */
  readonly from: number;
  /** Hands over more slices (never slice `next`, the caller's next, or one before) if the other thread has started those it has. */
  feed(next: number): Promise<void>;
  /**
   * No more slices: takes back those the other thread has not started (the lowest handed over)
   * and returns the first slice it does (the slice count when none); the caller evaluates the
   * slices from `from` up to it.
   */
  finish(): number;
  /**
   * The slices the other thread did; undefined when the evaluation failed there (the caller
   * then evaluates them itself, which reports any error as one thread would). Never rejects.
   */
  readonly result: Promise<OffloadResult | undefined>;
}

export interface Offload {
  /**
   * Starts evaluating `expr` (one selector, each result from one series) over the later slices
   * of `refs` elsewhere, at most `maxSeries` of them; undefined when it cannot (busy, or the
   * refs' samples cannot be handed over).
   */
  start(expr: Expr, refs: readonly SeriesRef[], t: EvalTimes, maxSeries: number): Promise<OffloadJob | undefined>;
}

/**
 * The per-series results of an expression over series given one by one, in slices (in order
 * within a slice, the slices last first; series with a value at some step): what the
 * evaluating thread of an Offload runs, with the evaluator of one thread, in batches as
 * stream.ts reads them. A series may be read into `arena`, whose room is handed out again
 * once its batch is evaluated.
 */
export class PerSeriesEval {
  private readonly sel: VectorSelector;
  /** Where the series are read to (ReadBuffers); released by finish(). */
  readonly arena = acquireReadArena();
  /** Each slice's results; slices come from the last one backwards. */
  private readonly slices: StepSeries[][] = [];
  private out: StepSeries[] = [];
  private batch: RawSeries[] = [];
  private samples = 0;

  constructor(
    private readonly expr: Expr,
    private readonly t: EvalTimes,
  ) {
    this.sel = selectors(expr)[0]!.sel;
  }

  add(s: RawSeries): void {
    if (s.ts.length === 0) return;
    this.batch.push(s);
    this.samples += s.ts.length;
    if (this.samples >= BATCH_SAMPLES) this.flush();
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    for (const s of new Evaluator(this.t, new Map([[this.sel, this.batch]])).evalVector(this.expr)) this.out.push(s);
    this.batch = [];
    this.samples = 0;
    this.arena.reset();
  }

  /** The end of a slice: its series are evaluated, kept apart from the next slice's. */
  endSlice(): void {
    this.flush();
    this.slices.push(this.out);
    this.out = [];
  }

  /** The results of the slices ended, in series order (slices were given last first). */
  finish(): StepSeries[] {
    releaseReadArena(this.arena);
    return this.slices.reverse().flat();
  }
}
