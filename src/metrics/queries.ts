import type { DataPoint, MetricDefinition, MetricType, Tags } from "./model.ts";
import { availabilityBucketStats } from "./availability-stats.ts";
import type { AvailabilityBucketPoint, NumericBucketPoint, TaggedBucketPoint } from "./bucket-points.ts";
import { numericBucketStats } from "./bucket-stats.ts";
import type { Buckets } from "./buckets.ts";
import { distinct } from "./distinct.ts";
import { dropLeadingEmpty } from "./from-earliest.ts";
import { type PeriodOp, periods } from "./periods.ts";
import { rates } from "./rates.ts";
import { type ColumnSeries, mergeSeries, type Order, type Series } from "./series.ts";
import { stackBuckets } from "./stacked.ts";
import { taggedStats } from "./tagged-stats.ts";
import type { PercentileRequest } from "./percentiles-param.ts";
import type { TimeRange } from "./time-range.ts";
import { withoutStaleMarkers } from "../prometheus/staleness.ts";
import type { MetricsReader } from "./reader.ts";
import type { ReadBuffers } from "../promql/values.ts";
import { withReadArena } from "../runtime/read-arenas.ts";
import { type Resolutions, tierAvailabilityStats, tierRateStats, tierValueStats } from "./rollup/tier-stats.ts";

/**
 * Read-side domain functions of the metrics interface: they fetch column series from the
 * store and apply the computations of src/metrics. Routes parse and validate; these compute.
 */

export interface RawRead {
  range: TimeRange;
  order: Order;
  limit?: number;
  distinct?: boolean;
}

const EMPTY: ColumnSeries = { ts: new Float64Array(0), values: new Float64Array(0) };

/** Raw points of one metric as wire objects. */
export async function readRawPoints(store: MetricsReader, tenant: string, type: MetricType, id: string, q: RawRead): Promise<DataPoint[]> {
  // Distinct applies before the limit for availability and after it for strings (0.16).
  const limitFirst = q.distinct && type === "string";
  const cols = await store.readRaw(tenant, type, id, {
    start: q.range.start,
    end: q.range.end,
    order: q.order,
    limit: q.distinct && !limitFirst ? undefined : q.limit,
  });
  let ts = cols.ts;
  let values = cols.values;
  let tags = cols.tags;
  if (q.distinct) {
    const d = distinct({ ts, values });
    if (tags) {
      const byTs = new Map(cols.ts.map((t, i) => [t, tags![i]] as const));
      tags = d.ts.map((t) => byTs.get(t));
    }
    ts = d.ts;
    values = d.values;
    if (!limitFirst && q.limit && q.limit > 0 && ts.length > q.limit) {
      ts = ts.slice(0, q.limit);
      values = values.slice(0, q.limit);
      tags = tags?.slice(0, q.limit);
    }
  }
  const out = new Array<DataPoint>(ts.length);
  for (let i = 0; i < ts.length; i++) {
    const t = tags?.[i];
    out[i] = t ? { timestamp: ts[i]!, value: values[i]!, tags: t } : { timestamp: ts[i]!, value: values[i]! };
  }
  return out;
}

/**
 * Points of a numeric metric for the Hawkular computations: staleness markers are no points
 * there. Read into `buffers` (an arena, src/runtime/read-arenas.ts) by the reads whose answers
 * are computed from the points (stats, rates, periods) and hold none of them.
 */
async function numericSeries(store: MetricsReader, tenant: string, type: MetricType, id: string, range: TimeRange, buffers: ReadBuffers): Promise<ColumnSeries> {
  const s = await store.readSeries(tenant, type, id, range.start, range.end, buffers);
  return s ? withoutStaleMarkers({ ts: s.ts, values: s.values }) : EMPTY;
}

/** Upstream feeds gauge points to the estimators newest first, counters and rates oldest first. */
const singleFeedOrder = (type: MetricType): Order => (type === "gauge" ? "desc" : "asc");

export interface StatsRead {
  buckets: Buckets;
  percentiles?: PercentileRequest[];
  /** Drop leading empty buckets (fromEarliest). */
  fromEarliest?: boolean;
  /** Told which resolutions (rollup tiers, raw points) the answer read. */
  seen?: Resolutions;
}

/**
 * Every bucket is answered, empty ones as `{start, end, empty: true}`, also when the whole
 * range holds no data (200, as upstream and the Python client expect). With fromEarliest the
 * leading empty buckets are dropped, so a metric with no data at all gives nothing (204).
 */
function finish<T extends { empty: boolean }>(points: T[], q: StatsRead): T[] {
  return q.fromEarliest ? dropLeadingEmpty(points) : points;
}

/** Bucketed stats of one gauge or counter, or of its rates. */
export async function readNumericStats(
  store: MetricsReader,
  tenant: string,
  type: "gauge" | "counter",
  id: string,
  q: StatsRead,
  rate = false,
): Promise<NumericBucketPoint[]> {
  // Rates are fed oldest first, like counters (upstream's read orders).
  const feedOrder = rate ? "asc" : singleFeedOrder(type);
  const tq = { buckets: q.buckets, percentiles: q.percentiles, feedOrder };
  const tiered = rate
    ? type === "counter"
      ? await tierRateStats(store, tenant, [id], tq, false, q.seen)
      : undefined
    : await tierValueStats(store, tenant, type, [id], tq, false, q.seen);
  if (tiered) return finish(tiered[0]!, q);
  q.seen?.add("raw");
  return withReadArena(async (arena) => {
    const s = await numericSeries(store, tenant, type, id, bucketsRange(q.buckets), arena);
    const series = rate ? rates(s, { kind: type }) : s;
    return finish(numericBucketStats(series, q.buckets, { percentiles: q.percentiles, feedOrder }), q);
  });
}

/** Bucketed uptime statistics of one availability metric. */
export async function readAvailabilityStats(store: MetricsReader, tenant: string, id: string, q: StatsRead): Promise<AvailabilityBucketPoint[]> {
  const tiered = await tierAvailabilityStats(store, tenant, id, q.buckets, q.seen);
  if (tiered) return finish(tiered, q);
  q.seen?.add("raw");
  return withReadArena(async (arena) => finish(availabilityBucketStats(await numericSeries(store, tenant, "availability", id, bucketsRange(q.buckets), arena), q.buckets), q));
}

/** The whole span covered by the buckets (the last one may end after the requested end). */
export function bucketsRange(b: Buckets): TimeRange {
  return { start: b.start, end: b.start + b.count * b.step };
}

export interface RateRead {
  range: TimeRange;
  order: Order;
  limit?: number;
}

/** Points of several metrics, `[{id, data}]`; metrics without points in the range are left out (clients index `data`). */
export async function readNamedPoints(
  store: MetricsReader,
  tenant: string,
  type: MetricType,
  defs: readonly MetricDefinition[],
  q: RawRead,
  rate: boolean,
): Promise<{ id: string; data: DataPoint[] }[]> {
  const out: { id: string; data: DataPoint[] }[] = [];
  for (const d of defs) {
    const data = rate ? await readRates(store, tenant, type as "gauge" | "counter", d.id, q) : await readRawPoints(store, tenant, type, d.id, q);
    if (data.length > 0) out.push({ id: d.id, data });
  }
  return out;
}

/** Rate points (per minute) of a gauge or counter. */
export async function readRates(store: MetricsReader, tenant: string, type: "gauge" | "counter", id: string, q: RateRead): Promise<DataPoint[]> {
  const r = await withReadArena(async (arena) => rates(await numericSeries(store, tenant, type, id, q.range, arena), { kind: type, order: q.order, limit: q.limit }));
  const out = new Array<DataPoint>(r.ts.length);
  for (let i = 0; i < r.ts.length; i++) out[i] = { timestamp: r.ts[i]!, value: r.values[i]! };
  return out;
}

export interface MultiStatsRead extends StatsRead {
  stacked: boolean;
  /** Stats over the rates of each metric instead of its values. */
  rate: boolean;
}

/** Stats over several metrics: pooled points, or per-metric buckets summed when stacked. */
export async function readMultiStats(
  store: MetricsReader,
  tenant: string,
  type: "gauge" | "counter",
  defs: MetricDefinition[],
  q: MultiStatsRead,
): Promise<NumericBucketPoint[]> {
  const feedOrder: Order = q.rate ? "asc" : "desc";
  const ids = defs.map((d) => d.id);
  const tq = { buckets: q.buckets, percentiles: q.percentiles, feedOrder };
  const tiered = q.rate
    ? type === "counter"
      ? await tierRateStats(store, tenant, ids, tq, !q.stacked, q.seen)
      : undefined
    : await tierValueStats(store, tenant, type, ids, tq, !q.stacked, q.seen);
  if (tiered) return finish(q.stacked ? stackBuckets(tiered, q.buckets) : tiered[0]!, q);
  q.seen?.add("raw");
  const range = bucketsRange(q.buckets);
  return withReadArena(async (arena) => {
    const series: Series[] = [];
    for (const d of defs) {
      const s = await numericSeries(store, tenant, type, d.id, range, arena);
      series.push(q.rate ? rates(s, { kind: type }) : s);
    }
    if (q.stacked) {
      const per = series.map((s) => numericBucketStats(s, q.buckets, { percentiles: q.percentiles, feedOrder }));
      return finish(stackBuckets(per, q.buckets), q);
    }
    return finish(numericBucketStats(mergeSeries(series), q.buckets, { percentiles: q.percentiles, feedOrder }), q);
  });
}

/** Stats of one metric's points grouped by the values of data-point tags. */
export async function readTaggedStats(
  store: MetricsReader,
  tenant: string,
  type: "gauge" | "counter",
  id: string,
  range: TimeRange,
  filters: ReadonlyMap<string, string>,
  percentiles: PercentileRequest[] | undefined,
): Promise<Record<string, TaggedBucketPoint>> {
  return withReadArena(async (arena) => {
    const read = await store.readSeries(tenant, type, id, range.start, range.end, arena);
    const s = read && withoutStaleMarkers(read);
    if (!s || s.ts.length === 0) return {};
    const tags: (Tags | undefined)[] = s.tags ?? new Array(s.ts.length);
    return taggedStats({ ts: s.ts, values: s.values, tags }, filters, { percentiles, feedOrder: singleFeedOrder(type) });
  });
}

/** Runs of consecutive gauge points meeting a threshold. */
export async function readPeriods(
  store: MetricsReader,
  tenant: string,
  id: string,
  range: TimeRange,
  threshold: number,
  op: PeriodOp,
): Promise<[number, number][]> {
  return withReadArena(async (arena) => periods(await numericSeries(store, tenant, "gauge", id, range, arena), threshold, op));
}
