import * as z from "zod";
import { readJson } from "../body.ts";
import { jsonBoolean, jsonInteger } from "../json-scalars.ts";
import { jsonOr204 } from "../json.ts";
import type { Routes, ServiceContext } from "../service.ts";
import { parseWith } from "../validate.ts";
import { type MetricType, TYPE_PATH } from "../../metrics/model.ts";
import { readMultiStats, readNamedPoints } from "../../metrics/queries.ts";
import { selectMetrics } from "../../metrics/select.ts";
import type { MetricsReadDeps } from "./read-deps.ts";
import { resolutionsFor, withResolution } from "./resolution.ts";
import { checkMixedStatsQuery, type MixedStatsQuery, mixedStats, mixedStatsQuerySchema } from "./mixed-stats.ts";
import { percentilesText, rawRead, readRange, requireBucketParam, statsRead, timeField } from "./read-params.ts";

/**
 * The POST query endpoints of Hawkular Metrics 0.17+ that the Grafana datasource and newer
 * clients use: raw and rate points of several metrics, stats per type, and stats across types
 * (single and batched). Bodies carry the same parameters as the GET reads.
 */

type NumericType = "gauge" | "counter";
const NUMERIC: NumericType[] = ["gauge", "counter"];

const rawQueryBody = z.object({
  ids: z.array(z.string()).optional(),
  tags: z.string().optional(),
  start: timeField,
  end: timeField,
  fromEarliest: jsonBoolean.optional(),
  limit: jsonInteger.optional(),
  order: z.string().optional(),
});

const typeStatsBody = z.object({
  metrics: z.array(z.string()).optional(),
  /** Accepted for `metrics`, as some clients name it. */
  ids: z.array(z.string()).optional(),
  tags: z.string().optional(),
  start: timeField,
  end: timeField,
  fromEarliest: jsonBoolean.optional(),
  buckets: jsonInteger.optional(),
  bucketDuration: z.string().optional(),
  percentiles: z.union([z.string(), z.array(z.union([z.string(), z.number()]))]).optional(),
  stacked: jsonBoolean.optional(),
});

/** POST /{type}/raw/query and /{type}/rate/query: `[{id, data}]` of each metric with points. */
async function namedPointsQuery(c: ServiceContext, deps: MetricsReadDeps, type: MetricType, rate: boolean): Promise<Response> {
  const b = parseWith(rawQueryBody, await readJson(c), "query");
  const tenant = c.get("tenant");
  const defs = await selectMetrics(deps.store, tenant, type, b.ids, b.tags);
  const range = await readRange(deps, b, async () => defs);
  if (!range) return c.body(null, 204);
  return jsonOr204(c, await readNamedPoints(deps.store, tenant, type, defs, rawRead(range, b, b), rate), { raw: true });
}

/** POST /{gauges|counters}/stats/query and /rate/stats/query: one series of buckets over the selected metrics. */
async function typeStatsQuery(c: ServiceContext, deps: MetricsReadDeps, type: NumericType, rate: boolean): Promise<Response> {
  const b = parseWith(typeStatsBody, await readJson(c), "query");
  const p = { ...b, percentiles: percentilesText(b.percentiles) };
  requireBucketParam(p);
  const tenant = c.get("tenant");
  const defs = await selectMetrics(deps.store, tenant, type, b.metrics ?? b.ids, b.tags);
  const range = await readRange(deps, b, async () => defs);
  const req = range && { ...statsRead(range, p, b.fromEarliest), seen: resolutionsFor(c) };
  if (!req || defs.length === 0) return c.body(null, 204);
  return withResolution(jsonOr204(c, await readMultiStats(deps.store, tenant, type, defs, { ...req, stacked: b.stacked ?? false, rate })), req.seen);
}

export function postQueryRoutes(r: Routes, deps: MetricsReadDeps): void {
  for (const type of ["gauge", "counter", "availability", "string"] as const) {
    r.post(`/${TYPE_PATH[type]}/raw/query`, (c) => namedPointsQuery(c, deps, type, false));
  }
  for (const type of NUMERIC) {
    r.post(`/${TYPE_PATH[type]}/rate/query`, (c) => namedPointsQuery(c, deps, type, true));
    r.post(`/${TYPE_PATH[type]}/stats/query`, (c) => typeStatsQuery(c, deps, type, false));
    r.post(`/${TYPE_PATH[type]}/rate/stats/query`, (c) => typeStatsQuery(c, deps, type, true));
  }
  r.post("/metrics/stats/query", async (c) => {
    const query = parseWith(mixedStatsQuerySchema, await readJson(c), "query");
    const seen = resolutionsFor(c);
    return withResolution(jsonOr204(c, await mixedStats(deps, c.get("tenant"), query, seen)), seen);
  });
  // Several named stats queries in one request: {name: query} → {name: answer}.
  r.post("/metrics/stats/batch/query", async (c) => {
    const queries = parseWith(z.record(z.string(), mixedStatsQuerySchema), await readJson(c), "queries");
    const out: Record<string, unknown> = {};
    const entries = Object.entries(queries) as [string, MixedStatsQuery][];
    for (const [, query] of entries) checkMixedStatsQuery(query);
    const seen = resolutionsFor(c);
    for (const [name, query] of entries) {
      const answer = await mixedStats(deps, c.get("tenant"), query, seen);
      if (Object.keys(answer).length > 0) out[name] = answer;
    }
    return withResolution(jsonOr204(c, out), seen);
  });
}
