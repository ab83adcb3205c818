import * as z from "zod";
import { readJson } from "../../../src/http/body.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { jsonOr204 } from "../../../src/http/json.ts";
import type { Routes, ServiceContext } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";
import { BUCKET_PARAM_REQUIRED, type Buckets, bucketConfig, LIMIT_ORDER_WITH_BUCKETS } from "../../../src/metrics/buckets.ts";
import { parseDuration } from "../../../src/metrics/duration.ts";
import { FROM_EARLIEST_WITHOUT_BUCKETS, fromEarliestRange } from "../../../src/metrics/from-earliest.ts";
import { type MetricDefinition, type MetricType, type Tags, TYPE_PATH } from "../../../src/metrics/model.ts";
import { effectiveLimit, resolveOrder } from "../../../src/metrics/order.ts";
import { parsePercentiles } from "../../../src/metrics/percentiles-param.ts";
import { parsePeriodOp } from "../../../src/metrics/periods.ts";
import { compileTagFilter } from "../../../src/metrics/tag-filter.ts";
import { parseTagList } from "../../../src/metrics/tag-list.ts";
import { compileTagSelector } from "../../../src/metrics/tag-selector.ts";
import { resolveTimeRange, type TimeRange } from "../../../src/metrics/time-range.ts";
import {
  readAvailabilityStats,
  readMultiStats,
  readNumericStats,
  readPeriods,
  readRates,
  readRawPoints,
  readTaggedStats,
  type StatsRead,
} from "../../metrics/queries.ts";
import type { MetricsDeps } from "./deps.ts";
import { parseQuery, q, rawReadQuery, statsQuery } from "./query-params.ts";

type NumericType = "gauge" | "counter";
const NUMERIC: NumericType[] = ["gauge", "counter"];
type StatsParams = z.output<typeof statsQuery>;

const now = (deps: MetricsDeps) => (deps.now ?? Date.now)();

/** Range, buckets and percentiles of a bucketed request; fromEarliest needs the metric's retention. */
function statsRequest(deps: MetricsDeps, p: StatsParams, retentionDays: () => number): StatsRead {
  const bucketParams = {
    buckets: p.buckets,
    bucketDuration: p.bucketDuration === undefined ? undefined : parseDuration(p.bucketDuration),
  };
  let range: TimeRange;
  if (p.fromEarliest) {
    range = fromEarliestRange(p.start, p.end, now(deps), retentionDays());
    if (bucketParams.buckets === undefined && bucketParams.bucketDuration === undefined) {
      throw new ApiError(400, FROM_EARLIEST_WITHOUT_BUCKETS);
    }
  } else range = resolveTimeRange(p.start, p.end, now(deps));
  const buckets: Buckets | undefined = bucketConfig(bucketParams, range);
  if (!buckets) throw new ApiError(400, BUCKET_PARAM_REQUIRED);
  return { buckets, percentiles: p.percentiles ? parsePercentiles(p.percentiles) : undefined, fromEarliest: p.fromEarliest };
}

function rejectLimitOrder(p: { limit?: number; order?: string }) {
  if (p.limit !== undefined || p.order !== undefined) throw new ApiError(400, LIMIT_ORDER_WITH_BUCKETS);
}

const hasBuckets = (p: StatsParams) => p.buckets !== undefined || p.bucketDuration !== undefined;

/** Retention of a metric for fromEarliest: its own, else the default. */
async function retentionOf(deps: MetricsDeps, tenant: string, type: MetricType, id: string): Promise<number | undefined> {
  const def = await deps.store.getMetric(tenant, type, id);
  return def ? (def.dataRetention ?? deps.defaultRetentionDays) : undefined;
}

async function rawRead(c: ServiceContext, deps: MetricsDeps, type: MetricType, allowDistinct: boolean): Promise<Response> {
  const p = parseQuery(c, rawReadQuery);
  const range = resolveTimeRange(p.start, p.end, now(deps));
  const order = resolveOrder(p.order, p.limit, p.start !== undefined, p.end !== undefined);
  const points = await readRawPoints(deps.store, c.get("tenant"), type, c.req.param("id")!, {
    range,
    order,
    limit: effectiveLimit(p.limit),
    distinct: allowDistinct && p.distinct,
  });
  return jsonOr204(c, points, { raw: true });
}

async function singleStats(c: ServiceContext, deps: MetricsDeps, type: MetricType, p: StatsParams): Promise<Response> {
  const tenant = c.get("tenant");
  const id = c.req.param("id")!;
  let retention: number | undefined;
  if (p.fromEarliest) {
    retention = await retentionOf(deps, tenant, type, id);
    if (retention === undefined && p.start === undefined && p.end === undefined && hasBuckets(p)) return c.body(null, 204);
  }
  const req = statsRequest(deps, p, () => retention ?? deps.defaultRetentionDays);
  if (type === "availability") return jsonOr204(c, await readAvailabilityStats(deps.store, tenant, id, req));
  return jsonOr204(c, await readNumericStats(deps.store, tenant, type as NumericType, id, req));
}

/** Definitions named by repeated `metrics` or matched by `tags`, as the multi-metric reads select them. */
async function selectMetrics(
  deps: MetricsDeps,
  tenant: string,
  type: MetricType,
  ids: string[] | undefined,
  tags: string | undefined,
  compileTags: (text: string) => (tags?: Tags) => boolean = (t) => compileTagFilter(parseTagList(t)),
): Promise<MetricDefinition[]> {
  const byIds = ids !== undefined && ids.length > 0;
  const byTags = tags !== undefined && tags !== "";
  if (!byIds && !byTags) throw new ApiError(400, "Either metrics or tags parameter must be used");
  if (byIds && byTags) throw new ApiError(400, "Cannot use both the metrics and tags parameters");
  if (byIds) return deps.store.findMetrics(tenant, { type, ids });
  const match = compileTags(tags!);
  return (await deps.store.findMetrics(tenant, { type })).filter((d) => match(d.tags));
}

async function multiStats(c: ServiceContext, deps: MetricsDeps, type: NumericType, rate: boolean): Promise<Response> {
  const p = parseQuery(c, statsQuery);
  rejectLimitOrder(p);
  const req = statsRequest(deps, p, () => deps.defaultRetentionDays);
  const defs = await selectMetrics(deps, c.get("tenant"), type, c.req.queries("metrics"), p.tags);
  return jsonOr204(c, await readMultiStats(deps.store, c.get("tenant"), type, defs, { ...req, stacked: p.stacked ?? false, rate }));
}

/** GET /{gauges|counters}/stats and friends: several metrics in one series of buckets. */
export function statsRoutes(r: Routes, deps: MetricsDeps): void {
  for (const type of NUMERIC) {
    const base = `/${TYPE_PATH[type]}`;
    r.get(`${base}/stats`, (c) => multiStats(c, deps, type, false));
    r.get(`${base}/data`, (c) => multiStats(c, deps, type, false));
    r.get(`${base}/rate/stats`, (c) => multiStats(c, deps, type, true));
  }
  r.get("/counters/rate", (c) => multiStats(c, deps, "counter", true));
  queryRoutes(r, deps);
}

export function readByIdRoutes(r: Routes, deps: MetricsDeps): void {
  for (const type of ["gauge", "counter", "availability", "string"] as const) {
    const base = `/${TYPE_PATH[type]}/:id`;
    const distinctAllowed = type === "availability" || type === "string";
    r.get(`${base}/raw`, (c) => rawRead(c, deps, type, distinctAllowed));
    if (type === "string") continue;
    r.get(`${base}/stats`, (c) => {
      const p = parseQuery(c, statsQuery);
      rejectLimitOrder(p);
      return singleStats(c, deps, type, p);
    });
    // Deprecated: raw points without bucket parameters, stats with them.
    r.get(`${base}/data`, (c) => {
      const p = parseQuery(c, statsQuery);
      if (!hasBuckets(p) && !p.fromEarliest) return rawRead(c, deps, type, distinctAllowed);
      if (!hasBuckets(p)) throw new ApiError(400, FROM_EARLIEST_WITHOUT_BUCKETS);
      rejectLimitOrder(p);
      return singleStats(c, deps, type, p);
    });
  }
  for (const type of NUMERIC) {
    const base = `/${TYPE_PATH[type]}/:id`;
    r.get(`${base}/rate`, async (c) => {
      const p = parseQuery(c, statsQuery);
      if (hasBuckets(p)) {
        // Bucket parameters here are deprecated: answer rate stats.
        rejectLimitOrder(p);
        return jsonOr204(c, await readNumericStats(deps.store, c.get("tenant"), type, c.req.param("id")!, statsRequest(deps, p, () => deps.defaultRetentionDays), true));
      }
      const range = resolveTimeRange(p.start, p.end, now(deps));
      const order = resolveOrder(p.order, p.limit, p.start !== undefined, p.end !== undefined);
      const pts = await readRates(deps.store, c.get("tenant"), type, c.req.param("id")!, { range, order, limit: effectiveLimit(p.limit) });
      return jsonOr204(c, pts, { raw: true });
    });
    r.get(`${base}/rate/stats`, async (c) => {
      const p = parseQuery(c, statsQuery);
      rejectLimitOrder(p);
      const req = statsRequest(deps, p, () => deps.defaultRetentionDays);
      return jsonOr204(c, await readNumericStats(deps.store, c.get("tenant"), type, c.req.param("id")!, req, true));
    });
    r.get(`${base}/stats/tags/:tags`, async (c) => {
      const p = parseQuery(c, statsQuery);
      const range = resolveTimeRange(p.start, p.end, now(deps));
      const filters = parseTagList(c.req.param("tags") ?? "");
      const percentiles = p.percentiles ? parsePercentiles(p.percentiles) : undefined;
      return jsonOr204(c, await readTaggedStats(deps.store, c.get("tenant"), type, c.req.param("id")!, range, filters, percentiles));
    });
  }
  r.get("/gauges/:id/periods", async (c) => {
    const p = parseQuery(
      c,
      z.object({
        start: q.int64("start").optional(),
        end: q.int64("end").optional(),
        threshold: z
          .string({ error: "threshold is required" })
          .trim()
          .regex(/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/, "threshold must be a number")
          .transform(Number),
        op: z.string().optional(),
      }),
    );
    const range = resolveTimeRange(p.start, p.end, now(deps));
    return jsonOr204(c, await readPeriods(deps.store, c.get("tenant"), c.req.param("id")!, range, p.threshold, parsePeriodOp(p.op)));
  });
}

// ---- POST query endpoints (post-0.16; used by the Grafana datasource) -------------------

const numberish = z.union([z.number(), z.string().trim().regex(/^[+-]?\d+$/).transform(Number)]).pipe(z.number().int());

const rawQueryBody = z.object({
  ids: z.array(z.string()).optional(),
  tags: z.string().optional(),
  start: numberish.optional(),
  end: numberish.optional(),
  limit: numberish.optional(),
  order: z.string().optional(),
  fromEarliest: z.boolean().optional(),
});

/** Range and bucket fields shared by the stats query bodies. */
const bucketBodyFields = {
  start: numberish.optional(),
  end: numberish.optional(),
  buckets: numberish.optional(),
  bucketDuration: z.string().optional(),
  percentiles: z.union([z.string(), z.array(z.union([z.string(), z.number()]))]).optional(),
};

const bucketBody = z.object(bucketBodyFields);

const statsQueryBody = z.object({
  ...bucketBodyFields,
  metrics: z.array(z.string()).optional(),
  ids: z.array(z.string()).optional(),
  tags: z.string().optional(),
  stacked: z.boolean().optional(),
  fromEarliest: z.boolean().optional(),
});

const percentilesText = (p: string | (string | number)[] | undefined) => (Array.isArray(p) ? p.join(",") : p);

async function rawQuery(c: ServiceContext, deps: MetricsDeps, type: MetricType, rate: boolean): Promise<Response> {
  const b = parseWith(rawQueryBody, await readJson(c), "query");
  const tenant = c.get("tenant");
  const range = resolveTimeRange(b.start, b.end, now(deps));
  const order = resolveOrder(b.order, b.limit, b.start !== undefined, b.end !== undefined);
  const limit = effectiveLimit(b.limit);
  const defs = await selectMetrics(deps, tenant, type, b.ids, b.tags, compileTagSelector);
  const out: { id: string; data: unknown[] }[] = [];
  for (const d of defs) {
    const data = rate
      ? await readRates(deps.store, tenant, type as NumericType, d.id, { range, order, limit })
      : await readRawPoints(deps.store, tenant, type, d.id, { range, order, limit });
    // Series without points are left out: clients index into `data`.
    if (data.length > 0) out.push({ id: d.id, data });
  }
  return jsonOr204(c, out, { raw: true });
}

/** The bucketing parameters of a POST stats query body, as the GET query's parameters. */
function bodyStatsParams(b: z.output<typeof bucketBody>): StatsParams {
  return { start: b.start, end: b.end, buckets: b.buckets, bucketDuration: b.bucketDuration, percentiles: percentilesText(b.percentiles) };
}

async function statsQueryFor(c: ServiceContext, deps: MetricsDeps, type: NumericType, rate: boolean): Promise<Response> {
  const b = parseWith(statsQueryBody, await readJson(c), "query");
  const p: StatsParams = { ...bodyStatsParams(b), fromEarliest: b.fromEarliest, stacked: b.stacked };
  const req = statsRequest(deps, p, () => deps.defaultRetentionDays);
  const defs = await selectMetrics(deps, c.get("tenant"), type, b.metrics ?? b.ids, b.tags, compileTagSelector);
  return jsonOr204(c, await readMultiStats(deps.store, c.get("tenant"), type, defs, { ...req, stacked: b.stacked ?? false, rate }));
}

const mixedStatsBody = z.object({
  ...bucketBodyFields,
  metrics: z.record(z.string(), z.array(z.string())).optional(),
  tags: z.string().optional(),
  types: z.array(z.string()).optional(),
  rates: z.boolean().optional(),
});

const STATS_TYPES = ["gauge", "counter", "availability"] as const;

/** POST /metrics/stats/query: `{type: {id: [buckets]}}` for several types at once. */
async function mixedStatsQuery(c: ServiceContext, deps: MetricsDeps): Promise<Response> {
  const b = parseWith(mixedStatsBody, await readJson(c), "query");
  const tenant = c.get("tenant");
  const req = statsRequest(deps, bodyStatsParams(b), () => deps.defaultRetentionDays);
  if (!b.metrics && !b.tags) throw new ApiError(400, "Either metrics or tags parameter must be used");
  if (b.metrics && b.tags) throw new ApiError(400, "Cannot use both the metrics and tags parameters");
  const types = (b.types ?? [...STATS_TYPES]).map((t) => {
    if (!(STATS_TYPES as readonly string[]).includes(t)) throw new ApiError(400, `Invalid type: ${t}`);
    return t as (typeof STATS_TYPES)[number];
  });
  const out: Record<string, Record<string, unknown[]>> = {};
  for (const type of types) {
    const ids = b.metrics?.[type];
    if (b.metrics && !ids) continue;
    const defs = b.metrics
      ? await deps.store.findMetrics(tenant, { type, ids })
      : await selectMetrics(deps, tenant, type, undefined, b.tags, compileTagSelector);
    for (const d of defs) {
      const points =
        type === "availability"
          ? await readAvailabilityStats(deps.store, tenant, d.id, req)
          : await readNumericStats(deps.store, tenant, type, d.id, req);
      if (points.length) (out[type] ??= {})[d.id] = points;
      if (b.rates && type !== "availability") {
        const r = await readNumericStats(deps.store, tenant, type, d.id, req, true);
        if (r.length) (out[`${type}_rate`] ??= {})[d.id] = r;
      }
    }
  }
  return jsonOr204(c, out);
}

function queryRoutes(r: Routes, deps: MetricsDeps): void {
  for (const type of ["gauge", "counter", "availability", "string"] as const) {
    r.post(`/${TYPE_PATH[type]}/raw/query`, (c) => rawQuery(c, deps, type, false));
  }
  for (const type of NUMERIC) {
    r.post(`/${TYPE_PATH[type]}/rate/query`, (c) => rawQuery(c, deps, type, true));
    r.post(`/${TYPE_PATH[type]}/stats/query`, (c) => statsQueryFor(c, deps, type, false));
    r.post(`/${TYPE_PATH[type]}/rate/stats/query`, (c) => statsQueryFor(c, deps, type, true));
  }
  r.post("/metrics/stats/query", (c) => mixedStatsQuery(c, deps));
}
