/**
 * The rows of one stored rollup block (one series, one tier, `blockBuckets` buckets), in
 * column form: one entry per bucket that holds points, ascending by bucket.
 *
 * A numeric bucket [a, b) is kept as two parts, so that both the half-open buckets of the
 * Hawkular stats, [s, e), and Prometheus' left-open windows, (s, e], can be composed from
 * whole rows: its **edge**, the point exactly at a (if any), and its **interior**, the points
 * of (a, b). An availability bucket is one segment of [a, b).
 */

/** What a block holds: gauges (and remote-written counters), counters (with rate pairs), availability. */
export const KIND_NUMERIC = 0;
export const KIND_COUNTER = 1;
export const KIND_AVAILABILITY = 2;
export type RollupKind = typeof KIND_NUMERIC | typeof KIND_COUNTER | typeof KIND_AVAILABILITY;

/**
 * Sketch bins of each bucket (quantile-sketch.ts): counts of positive bins (pn) from key pf on,
 * negative bins (nn) from key nf on (keys of |v|), zeros, +Inf, −Inf; the bins themselves, of all
 * buckets one after another, as the gap to the previous key (0 for the next key) and the count.
 */
export interface SketchColumns {
  pn: Float64Array;
  pf: Float64Array;
  nn: Float64Array;
  nf: Float64Array;
  zero: Float64Array;
  pinf: Float64Array;
  ninf: Float64Array;
  gaps: Float64Array;
  counts: Float64Array;
  /** Index of each bucket's first bin in gaps/counts (length n + 1); made when decoded. */
  at: Float64Array;
}

export interface NumericRows {
  kind: typeof KIND_NUMERIC | typeof KIND_COUNTER;
  n: number;
  /** Bucket number within the block. */
  idx: Float64Array;
  /** 1 when a point lies exactly on the bucket's start. */
  edge: Float64Array;
  /** Its value (NaN kept as stored). */
  edgeV: Float64Array;
  /** Interior: how many points (staleness markers are none). */
  cnt: Float64Array;
  min: Float64Array;
  max: Float64Array;
  sum: Float64Array;
  firstT: Float64Array;
  firstV: Float64Array;
  lastT: Float64Array;
  lastV: Float64Array;
  /** Sum of the value before each drop (counter resets), between interior points. */
  rs: Float64Array;
  /** Counters: per-minute rates of consecutive interior points, resets left out. */
  rn?: Float64Array;
  rmin?: Float64Array;
  rmax?: Float64Array;
  rsum?: Float64Array;
  /**
   * When the first raw chunk this bucket was computed from expires (ms): until then the row is
   * the summary of the raw points stored for the bucket (when nothing newer is pending).
   */
  srcExp: Float64Array;
  sketch: SketchColumns;
  rateSketch?: SketchColumns;
}

export interface AvailabilityRows {
  kind: typeof KIND_AVAILABILITY;
  n: number;
  idx: Float64Array;
  samples: Float64Array;
  firstT: Float64Array;
  firstV: Float64Array;
  lastT: Float64Array;
  lastV: Float64Array;
  /** ms between consecutive points, credited to the earlier one's state (down, up, unknown, admin). */
  dDown: Float64Array;
  dUp: Float64Array;
  dUnknown: Float64Array;
  dAdmin: Float64Array;
  /** Hawkular 0.16's downtime between consecutive points (see availability-stats.ts). */
  dt016: Float64Array;
  /** Entries into down, and into a state other than up, after the first point. */
  downCnt: Float64Array;
  notUpCnt: Float64Array;
  /** Latest time 0.16's last downtime / 0.2x's last not-up time was set after the first point; NaN if never. */
  lastDT: Float64Array;
  lastNUT: Float64Array;
  srcExp: Float64Array;
}

export type Rows = NumericRows | AvailabilityRows;

export const NUMERIC_COLUMNS = ["idx", "edge", "edgeV", "cnt", "min", "max", "sum", "firstT", "firstV", "lastT", "lastV", "rs", "srcExp"] as const;
export const RATE_COLUMNS = ["rn", "rmin", "rmax", "rsum"] as const;
export const AVAILABILITY_COLUMNS = [
  "idx",
  "samples",
  "firstT",
  "firstV",
  "lastT",
  "lastV",
  "dDown",
  "dUp",
  "dUnknown",
  "dAdmin",
  "dt016",
  "downCnt",
  "notUpCnt",
  "lastDT",
  "lastNUT",
  "srcExp",
] as const;
export const SKETCH_COLUMNS = ["pn", "pf", "nn", "nf", "zero", "pinf", "ninf"] as const;

/** Growable columns, filled bucket by bucket (the roller's output before encoding). */
export class ColumnsBuilder {
  n = 0;
  readonly cols = new Map<string, number[]>();

  constructor(names: readonly string[]) {
    for (const c of names) this.cols.set(c, []);
  }

  col(name: string): number[] {
    return this.cols.get(name)!;
  }

  array(name: string): Float64Array {
    return Float64Array.from(this.col(name));
  }
}
