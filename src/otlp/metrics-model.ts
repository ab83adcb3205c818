/**
 * OTLP metrics (opentelemetry-proto, metrics/v1) as the two decoders (protobuf and JSON) hand
 * them over: plain objects, times already in milliseconds, 64-bit counts as numbers. Only what
 * the conversion to series reads is kept (no exemplars, descriptions or dropped counts).
 */

export type AttributeValue = string | number | boolean | AttributeValue[] | { [key: string]: AttributeValue } | undefined;

export type Attributes = [string, AttributeValue][];

export const TEMPORALITY = { unspecified: 0, delta: 1, cumulative: 2 } as const;

/** DataPointFlags: the point holds no value (its series ended; Prometheus writes a staleness marker). */
export const FLAG_NO_RECORDED_VALUE = 1;

interface PointBase {
  attributes: Attributes;
  startMs: number;
  timeMs: number;
  flags: number;
}

export interface NumberPoint extends PointBase {
  value: number;
}

export interface HistogramPoint extends PointBase {
  count: number;
  sum?: number;
  bucketCounts: number[];
  explicitBounds: number[];
}

export interface ExponentialPoint extends PointBase {
  count: number;
  sum?: number;
  scale: number;
  zeroCount: number;
  zeroThreshold: number;
  positive: { offset: number; bucketCounts: number[] };
  negative: { offset: number; bucketCounts: number[] };
}

export interface SummaryPoint extends PointBase {
  count: number;
  sum: number;
  quantiles: { quantile: number; value: number }[];
}

export type MetricData =
  | { kind: "gauge"; points: NumberPoint[] }
  | { kind: "sum"; points: NumberPoint[]; temporality: number; monotonic: boolean }
  | { kind: "histogram"; points: HistogramPoint[]; temporality: number }
  | { kind: "exponentialHistogram"; points: ExponentialPoint[]; temporality: number }
  | { kind: "summary"; points: SummaryPoint[] }
  | { kind: "none" };

export interface OtlpMetric {
  name: string;
  unit: string;
  data: MetricData;
}

export interface ScopeMetrics {
  scope: { name: string; version: string };
  metrics: OtlpMetric[];
}

export interface ResourceMetrics {
  resource: Attributes;
  scopes: ScopeMetrics[];
}

export interface MetricsRequest {
  resources: ResourceMetrics[];
}

export class OtlpDecodeError extends Error {}

/** Nanoseconds since the epoch, as the two 32-bit halves of a fixed64, to whole milliseconds (exact). */
export function nanosToMs(lo: number, hi: number): number {
  // hi·2^32 = hi·4294·10^6 + hi·967296: both parts stay exact in a double.
  return hi * 4294 + Math.floor((hi * 967_296 + lo) / 1_000_000);
}

/** Number of data points in a metric. */
export function pointCount(m: OtlpMetric): number {
  return m.data.kind === "none" ? 0 : m.data.points.length;
}
