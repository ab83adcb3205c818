import * as z from "zod";
import { jsonOr204 } from "../json.ts";
import type { Routes, ServiceContext } from "../service.ts";
import { METRIC_TYPES, type MetricType, TYPE_PATH } from "../../metrics/model.ts";
import { parsePeriodOp } from "../../metrics/periods.ts";
import { readNamedPoints, readPeriods, readRates, readRawPoints } from "../../metrics/queries.ts";
import { selectMetrics } from "../../metrics/select.ts";
import type { MetricsReadDeps } from "./read-deps.ts";
import { parseQuery, q, rawReadQuery } from "./query-params.ts";
import { rawRead, readRange } from "./read-params.ts";

type RawQueryParams = z.output<typeof rawReadQuery>;

const definitionsOf = (deps: MetricsReadDeps, c: ServiceContext, type: MetricType) => async () => {
  const d = await deps.store.getMetric(c.get("tenant"), type, c.req.param("id")!);
  return d ? [d] : [];
};

/** GET /{type}/{id}/raw (and the deprecated /data without bucket parameters). */
export async function rawPoints(c: ServiceContext, deps: MetricsReadDeps, type: MetricType, p: RawQueryParams): Promise<Response> {
  const range = await readRange(deps, p, definitionsOf(deps, c, type));
  if (!range) return c.body(null, 204);
  const read = { ...rawRead(range, p, p), distinct: (type === "availability" || type === "string") && p.distinct };
  return jsonOr204(c, await readRawPoints(deps.store, c.get("tenant"), type, c.req.param("id")!, read), { raw: true });
}

/** GET /{gauges|counters}/{id}/rate without bucket parameters: rate points per minute. */
export async function ratePoints(c: ServiceContext, deps: MetricsReadDeps, type: "gauge" | "counter", p: RawQueryParams): Promise<Response> {
  const range = await readRange(deps, p, definitionsOf(deps, c, type));
  if (!range) return c.body(null, 204);
  return jsonOr204(c, await readRates(deps.store, c.get("tenant"), type, c.req.param("id")!, rawRead(range, p, p)), { raw: true });
}

/** Raw reads that return points: by id, and by tags for several metrics. */
export function rawReadRoutes(r: Routes, deps: MetricsReadDeps): void {
  for (const type of METRIC_TYPES) {
    // GET /{type}/tags/{tags}/raw (0.2x): the points of every metric the tags select, as [{id, data}].
    r.get(`/${TYPE_PATH[type]}/tags/:tags/raw`, async (c) => {
      const p = parseQuery(c, rawReadQuery);
      const defs = await selectMetrics(deps.store, c.get("tenant"), type, undefined, c.req.param("tags"));
      const range = await readRange(deps, p, async () => defs);
      if (!range) return c.body(null, 204);
      return jsonOr204(c, await readNamedPoints(deps.store, c.get("tenant"), type, defs, rawRead(range, p, p), false), { raw: true });
    });
  }
}

/** Per-metric raw reads; registered after the static paths of each family. */
export function rawReadByIdRoutes(r: Routes, deps: MetricsReadDeps): void {
  for (const type of METRIC_TYPES) {
    r.get(`/${TYPE_PATH[type]}/:id/raw`, (c) => rawPoints(c, deps, type, parseQuery(c, rawReadQuery)));
  }
  r.get("/gauges/:id/periods", async (c) => {
    const p = parseQuery(
      c,
      z.object({
        start: z.string().optional(),
        end: z.string().optional(),
        threshold: z
          .string({ error: "threshold is required" })
          .trim()
          .regex(/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/, "threshold must be a number")
          .transform(Number),
        op: z.string().optional(),
        fromEarliest: q.bool("fromEarliest").optional(),
      }),
    );
    const range = await readRange(deps, p, definitionsOf(deps, c, "gauge"));
    if (!range) return c.body(null, 204);
    return jsonOr204(c, await readPeriods(deps.store, c.get("tenant"), c.req.param("id")!, range, p.threshold, parsePeriodOp(p.op)));
  });
}
