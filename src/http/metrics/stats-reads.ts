import type * as z from "zod";
import { ApiError } from "../errors.ts";
import { jsonOr204 } from "../json.ts";
import type { Routes, ServiceContext } from "../service.ts";
import { LIMIT_ORDER_WITH_BUCKETS } from "../../metrics/buckets.ts";
import { type MetricType, TYPE_PATH } from "../../metrics/model.ts";
import { parsePercentiles } from "../../metrics/percentiles-param.ts";
import { parseTagList } from "../../metrics/tag-list.ts";
import { parseTimeParam, resolveTimeRange } from "../../metrics/time-range.ts";
import { readAvailabilityStats, readMultiStats, readNumericStats, readTaggedStats } from "../../metrics/queries.ts";
import { selectMetrics } from "../../metrics/select.ts";
import type { MetricsReadDeps } from "./read-deps.ts";
import { resolutionsFor, withResolution } from "./resolution.ts";
import { parseQuery, rawReadQuery, statsQuery } from "./query-params.ts";
import { ratePoints, rawPoints } from "./raw-reads.ts";
import { nowOf, readRange, requireBucketParam, statsRead } from "./read-params.ts";

type NumericType = "gauge" | "counter";
const NUMERIC: NumericType[] = ["gauge", "counter"];
type StatsParams = z.output<typeof statsQuery>;

function rejectLimitOrder(p: { limit?: number; order?: string }) {
  if (p.limit !== undefined || p.order !== undefined) throw new ApiError(400, LIMIT_ORDER_WITH_BUCKETS);
}

const hasBuckets = (p: StatsParams) => p.buckets !== undefined || p.bucketDuration !== undefined;

/**
 * Bucketed stats of one metric. A metric that does not exist answers 204; one that exists gets
 * every bucket of the range, empty ones included, even when none holds data.
 */
async function singleStats(c: ServiceContext, deps: MetricsReadDeps, type: MetricType, p: StatsParams, rate = false): Promise<Response> {
  rejectLimitOrder(p);
  requireBucketParam(p);
  const tenant = c.get("tenant");
  const id = c.req.param("id")!;
  const def = await deps.store.getMetric(tenant, type, id);
  const range = await readRange(deps, p, async () => (def ? [def] : []));
  const req = range && { ...statsRead(range, p, p.fromEarliest), seen: resolutionsFor(c) };
  if (!def || !req) return c.body(null, 204);
  if (type === "availability") return withResolution(jsonOr204(c, await readAvailabilityStats(deps.store, tenant, id, req)), req.seen);
  return withResolution(jsonOr204(c, await readNumericStats(deps.store, tenant, type as NumericType, id, req, rate)), req.seen);
}

/** Stats over several metrics (named by repeated `metrics`, or selected by `tags`) in one series of buckets. */
async function multiStats(c: ServiceContext, deps: MetricsReadDeps, type: NumericType, rate: boolean): Promise<Response> {
  const p = parseQuery(c, statsQuery);
  rejectLimitOrder(p);
  // Checked in upstream's order: the range, then a bucket parameter, then the selection.
  if (!p.fromEarliest) resolveTimeRange(parseTimeParam("start", p.start, nowOf(deps)), parseTimeParam("end", p.end, nowOf(deps)), nowOf(deps));
  requireBucketParam(p);
  const defs = await selectMetrics(deps.store, c.get("tenant"), type, c.req.queries("metrics"), p.tags);
  const range = await readRange(deps, p, async () => defs);
  // The buckets of a range given are checked whether or not any metric was found.
  const req = range && { ...statsRead(range, p, p.fromEarliest), seen: resolutionsFor(c) };
  if (!req || defs.length === 0) return c.body(null, 204);
  return withResolution(jsonOr204(c, await readMultiStats(deps.store, c.get("tenant"), type, defs, { ...req, stacked: p.stacked ?? false, rate })), req.seen);
}

/** GET /{gauges|counters}/stats and friends: several metrics in one series of buckets. */
export function statsRoutes(r: Routes, deps: MetricsReadDeps): void {
  for (const type of NUMERIC) {
    const base = `/${TYPE_PATH[type]}`;
    r.get(`${base}/stats`, (c) => multiStats(c, deps, type, false));
    r.get(`${base}/data`, (c) => multiStats(c, deps, type, false));
    r.get(`${base}/rate/stats`, (c) => multiStats(c, deps, type, true));
  }
  r.get("/counters/rate", (c) => multiStats(c, deps, "counter", true));
}

/** Per-metric stats and rates; registered after the static paths of each family. */
export function statsByIdRoutes(r: Routes, deps: MetricsReadDeps): void {
  for (const type of ["gauge", "counter", "availability"] as const) {
    const base = `/${TYPE_PATH[type]}/:id`;
    r.get(`${base}/stats`, (c) => singleStats(c, deps, type, parseQuery(c, statsQuery)));
    // Deprecated: raw points without bucket parameters, stats with them.
    r.get(`${base}/data`, (c) => {
      const p = parseQuery(c, statsQuery);
      if (!hasBuckets(p)) return rawPoints(c, deps, type, parseQuery(c, rawReadQuery));
      return singleStats(c, deps, type, p);
    });
  }
  for (const type of NUMERIC) {
    const base = `/${TYPE_PATH[type]}/:id`;
    r.get(`${base}/rate`, (c) => {
      const p = parseQuery(c, statsQuery);
      // Bucket parameters here are deprecated: they ask for rate stats.
      return hasBuckets(p) ? singleStats(c, deps, type, p, true) : ratePoints(c, deps, type, parseQuery(c, rawReadQuery));
    });
    r.get(`${base}/rate/stats`, (c) => singleStats(c, deps, type, parseQuery(c, statsQuery), true));
    r.get(`${base}/stats/tags/:tags`, async (c) => {
      const p = parseQuery(c, statsQuery);
      const now = nowOf(deps);
      const range = resolveTimeRange(parseTimeParam("start", p.start, now), parseTimeParam("end", p.end, now), now);
      const filters = parseTagList(c.req.param("tags") ?? "");
      const percentiles = p.percentiles ? parsePercentiles(p.percentiles) : undefined;
      return jsonOr204(c, await readTaggedStats(deps.store, c.get("tenant"), type, c.req.param("id")!, range, filters, percentiles));
    });
  }
}
