/** Result shapes of the stats endpoints, in the field order upstream writes them. */

/** A requested percentile; `quantile` is a fraction (request 50.0 → 0.5), as in 0.16. */
export interface Percentile {
  quantile: number;
  value: number;
}

export interface NumericStats {
  min: number;
  avg: number;
  median: number;
  max: number;
  sum: number;
  samples: number;
  /** Absent when no percentiles were requested (an empty list is never written). */
  percentiles?: Percentile[];
}

export interface EmptyBucketPoint {
  start: number;
  end: number;
  empty: true;
}

export type NumericBucketPoint = EmptyBucketPoint | ({ start: number; end: number } & NumericStats & { empty: false });

export interface AvailabilityStats {
  start: number;
  end: number;
  /** ms spent down within the bucket. */
  downtimeDuration: number;
  /** Timestamp of the last down observation; the bucket end when the bucket ends down; 0 when never down. */
  lastDowntime: number;
  /** 1 − downtimeDuration / bucket length. */
  uptimeRatio: number;
  /** Number of transitions into down. */
  downtimeCount: number;
  empty: false;
}

export type AvailabilityBucketPoint = EmptyBucketPoint | AvailabilityStats;

/** Stats of the points sharing one combination of data-point tag values. */
export interface TaggedBucketPoint extends NumericStats {
  tags: Record<string, string>;
}

export function emptyBucket(start: number, end: number): EmptyBucketPoint {
  return { start, end, empty: true };
}
