import type { Availability } from "./model.ts";

/** Result shapes of the stats endpoints, in the field order upstream writes them. */

/**
 * A requested percentile. `quantile` is the number the client asked for (request 90 → 90, as
 * Hawkular Metrics from 0.17 on, the Grafana datasource and the Go client read it), and
 * `originalQuantile` the text it wrote (0.2x).
 */
export interface Percentile {
  quantile: number;
  originalQuantile: string;
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

/**
 * A bucket of stacked stats where no metric had data: upstream adds up nothing there, which
 * makes 0 for each statistic (a stacked chart drawn from it has no gap), and still calls it empty.
 */
export interface ZeroBucketPoint {
  start: number;
  end: number;
  min: 0;
  avg: 0;
  median: 0;
  max: 0;
  sum: 0;
  empty: true;
}

export type NumericBucketPoint = EmptyBucketPoint | ZeroBucketPoint | ({ start: number; end: number } & NumericStats & { empty: false });

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
  // The fields of Hawkular Metrics 0.2x, where admin and unknown count as "not up":
  /** ms spent in each state seen in the bucket; the time before the first point counts for the first point's state. */
  durationMap: Partial<Record<Availability, number>>;
  upDuration: number;
  downDuration: number;
  unknownDuration: number;
  adminDuration: number;
  notUpDuration: number;
  /** Timestamp of the last observation or end of a not-up period; the bucket end when it ends not up; 0 when always up. */
  lastNotUptime: number;
  /** Number of transitions into a not-up state. */
  notUpCount: number;
  upCount: number;
  samples: number;
  empty: false;
}

export type AvailabilityBucketPoint = EmptyAvailabilityBucketPoint | AvailabilityStats;

/** Stats of the points sharing one combination of data-point tag values. */
export interface TaggedBucketPoint extends NumericStats {
  tags: Record<string, string>;
}

export function emptyBucket(start: number, end: number): EmptyBucketPoint {
  return { start, end, empty: true };
}

/**
 * An availability bucket without points, as Hawkular Metrics 0.2x writes it: no durations or
 * ratio, but its counts of samples and of up periods (both 0), as the clients' recordings show.
 */
export interface EmptyAvailabilityBucketPoint {
  start: number;
  end: number;
  samples: 0;
  upCount: 0;
  empty: true;
}
