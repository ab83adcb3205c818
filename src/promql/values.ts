import type { Matcher } from "./ast.ts";
import type { Labels } from "./labels.ts";
import type { TierSteps, WindowHint } from "./tier-windows.ts";

/** Stored samples of one series, ascending by time (ms). */
export interface RawSeries {
  labels: Labels;
  ts: Float64Array;
  vals: Float64Array;
  /**
   * Times of the series' staleness markers, ascending (absent: none). They are not samples (not
   * in ts/vals, so range vectors never see them); an instant selector finds nothing at t when
   * a marker lies between the latest sample and t, as in Prometheus, where the latest sample
   * is then the marker.
   */
  stale?: Float64Array;
  /**
   * With a WindowHint: the steps answered from rollup tiers (tier-windows.ts); the samples
   * then need only cover the other steps' windows.
   */
  steps?: TierSteps;
}

/**
 * Where a read may put its samples (so a scan of many series does not allocate and zero a
 * buffer per series: src/runtime/read-arenas.ts): `take` gives room for `n` numbers, which the
 * caller hands out again once it is done with the series read into it; the numbers it holds
 * are any, the read writes those it returns. `shrink`: of the room taken last, only the first
 * `n` numbers are used.
 */
export interface ReadBuffers {
  take(n: number): Float64Array;
  shrink(room: Float64Array, n: number): void;
}

/** A series found by a selector, its samples not read yet. */
export interface SeriesRef {
  labels: Labels;
  /**
   * Its samples in the selected span, ascending; undefined when it has none there. With
   * `buffers`, they may be views of a buffer from it, valid until it hands that buffer out again.
   */
  read(buffers?: ReadBuffers): Promise<RawSeries | undefined>;
  /** Read through rollup tiers (a WindowHint was taken): its samples are not for another thread. */
  tiered?: boolean;
}

/**
 * Where the evaluator reads series: every series matching all matchers that may have samples
 * in [start, end] (ms, both inclusive; the evaluator applies Prometheus' open left bounds).
 * Selecting reads no samples, so a query can read and drop series one by one.
 */
export interface SeriesSource {
  /** With `windows`, the series may answer some steps of that range function from rollup tiers (RawSeries.steps). */
  select(matchers: Matcher[], start: number, end: number, windows?: WindowHint): Promise<SeriesRef[]>;
}

/** Samples read per batch (stream.ts, offload.ts): large enough to amortise the evaluator's set-up, small in memory (1 MiB of an arena). */
export const BATCH_SAMPLES = 65_536;

/** The samples of every series, in order (into `buffers` when given); series without samples are left out. */
export async function readAll(refs: readonly SeriesRef[], buffers?: ReadBuffers): Promise<RawSeries[]> {
  const out: RawSeries[] = [];
  for (const r of refs) {
    const s = await r.read(buffers);
    if (s && (s.ts.length > 0 || s.steps)) out.push(s);
  }
  return out;
}

/** One series of an instant vector over every step of the evaluation. */
export interface StepSeries {
  labels: Labels;
  vals: Float64Array;
  /** 1 where the series has a sample at that step. */
  has: Uint8Array;
}

export type Value =
  | { type: "scalar"; vals: Float64Array }
  | { type: "vector"; series: StepSeries[] }
  | { type: "string"; value: string }
  | { type: "matrix"; series: RawSeries[] };

/** Errors during evaluation that Prometheus reports as `execution` (HTTP 422). */
export class ExecutionError extends Error {}

/** A query that cannot be run as asked, which Prometheus refuses as `bad_data` (HTTP 400) before evaluating it. */
export class InvalidQueryError extends Error {}

export function newStepSeries(labels: Labels, n: number): StepSeries {
  return { labels, vals: new Float64Array(n), has: new Uint8Array(n) };
}
