/** The vocabulary of the metrics interface, shared by collector and agent. */

export const METRIC_TYPES = ["gauge", "availability", "counter", "string"] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

/** URL path segment of each type's endpoint family. */
export const TYPE_PATH: Record<MetricType, string> = {
  gauge: "gauges",
  availability: "availability",
  counter: "counters",
  string: "strings",
};

export const PATH_TYPE: Record<string, MetricType> = {
  gauges: "gauge",
  availability: "availability",
  counters: "counter",
  strings: "string",
};

export type Tags = Record<string, string>;

/** `admin` (administratively down, e.g. maintenance) came with Hawkular Metrics 0.2x. */
export const AVAILABILITY_VALUES = ["down", "up", "unknown", "admin"] as const;
export type Availability = (typeof AVAILABILITY_VALUES)[number];
/** Availability is stored as a number: its index in AVAILABILITY_VALUES. */
export const AVAILABILITY_CODE: Record<Availability, number> = { down: 0, up: 1, unknown: 2, admin: 3 };

/** A data point as it appears on the wire. */
export interface DataPoint {
  timestamp: number;
  value: number | string;
  tags?: Tags;
}

/** Points to store for one metric. Availability values are "up"/"down"/"unknown". */
export interface MetricWrite {
  type: MetricType;
  id: string;
  points: DataPoint[];
}

export interface MetricDefinition {
  tenantId: string;
  id: string;
  type: MetricType;
  tags?: Tags;
  /** Days; reads report the stored value or the default. */
  dataRetention?: number;
  minTimestamp?: number;
  maxTimestamp?: number;
}

export interface Tenant {
  id: string;
  /** Retention in days per metric type. */
  retentions?: Partial<Record<MetricType, number>>;
}

export const DEFAULT_RETENTION_DAYS = 7;
export const MAX_STRING_LENGTH = 2048;
export const DAY_MS = 86_400_000;
