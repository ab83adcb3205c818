import type { CanonicalPath } from "./canonical-path.ts";
import type { EntityCode } from "./segment-types.ts";

export type Properties = Record<string, unknown>;

export const METRIC_DATA_TYPES = ["GAUGE", "AVAILABILITY", "COUNTER", "COUNTER_RATE"] as const;
export type MetricDataType = (typeof METRIC_DATA_TYPES)[number];

export const METRIC_UNITS = [
  "NONE",
  "PERCENTAGE",
  "BYTES",
  "KILOBYTES",
  "MEGABYTES",
  "GIGABYTES",
  "TERABYTES",
  "PETABYTES",
  "BITS",
  "KILOBITS",
  "MEGABITS",
  "GIGABITS",
  "TERABITS",
  "PETABITS",
  "EPOCH_MILLISECONDS",
  "EPOCH_SECONDS",
  "JIFFYS",
  "NANOSECONDS",
  "MICROSECONDS",
  "MILLISECONDS",
  "SECONDS",
  "MINUTES",
  "HOURS",
  "DAYS",
  "PER_JIFFY",
  "PER_NANOSECOND",
  "PER_MICROSECOND",
  "PER_MILLISECOND",
  "PER_SECOND",
  "PER_MINUTE",
  "PER_HOUR",
  "PER_DAY",
  "CELSIUS",
  "KELVIN",
  "FAHRENHEIGHT",
] as const;
export type MetricUnit = (typeof METRIC_UNITS)[number];

export interface Hashes {
  identityHash: string;
  contentHash: string;
  syncHash: string;
}

/** An entity as stored: common fields plus the few that belong to one type. */
export interface EntityRecord {
  path: CanonicalPath;
  type: EntityCode;
  id: string;
  name?: string;
  properties?: Properties;
  /** Resource: its resource type; metric: its metric type (canonical paths). */
  typePath?: CanonicalPath;
  /** Metric and metric type. */
  collectionInterval?: number;
  /** Metric type. */
  metricDataType?: MetricDataType;
  unit?: MetricUnit;
  /** Data entity: any JSON value. */
  value?: unknown;
  /** Syncable types only (f, rt, mt, ot, r, m, d). */
  hashes?: Hashes;
}

export interface RelationshipRecord {
  id: string;
  name: string;
  source: CanonicalPath;
  target: CanonicalPath;
  properties?: Properties;
}

/** Relationship names with rules of their own (research §3.4, upstream relationship rules). */
export const WELL_KNOWN = {
  contains: "contains",
  defines: "defines",
  incorporates: "incorporates",
  isParentOf: "isParentOf",
  hasData: "hasData",
} as const;
