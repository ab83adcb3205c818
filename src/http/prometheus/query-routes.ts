/** GET|POST /api/v1/query and /api/v1/query_range. */
import type { Context, Hono } from "hono";
import { ParseError, parsePromQL, UnsupportedFeatureError } from "../../promql/parse.ts";
import type { Expr } from "../../promql/ast.ts";
import { instantQuery, MAX_POINTS, rangeQuery } from "../../promql/query.ts";
import { releaseRangeResult } from "../../promql/result-memory.ts";
import { ExecutionError, InvalidQueryError } from "../../promql/values.ts";
import { StoreSeriesSource } from "../../prometheus/store-source.ts";
import type { PrometheusReadDeps } from "./read-deps.ts";
import { resolutionsFor, withResolution } from "../metrics/resolution.ts";
import { parseDurationParam, parseTime, readParams } from "./params.ts";
import { badData, PromApiError, respondResult } from "./respond.ts";
import { resolveTenant } from "./tenant.ts";

function parseQuery(q: string | undefined): Expr {
  try {
    return parsePromQL(q ?? "");
  } catch (e) {
    if (e instanceof UnsupportedFeatureError) throw new PromApiError("not_implemented", e.message);
    if (e instanceof ParseError) throw badData(`invalid parameter "query": ${e.message}`);
    throw e;
  }
}

async function run<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof ExecutionError) throw new PromApiError("execution", e.message);
    if (e instanceof InvalidQueryError) throw badData(`invalid parameter "query": ${e.message}`);
    throw e;
  }
}

/** Called once the query is answered: tells the memory governor (PrometheusReadDeps.memory). */
function heapGrowth(deps: PrometheusReadDeps): (() => void) | undefined {
  const m = deps.memory;
  if (!m) return undefined;
  const before = m.queryStarts();
  return before === undefined ? undefined : () => m.answered(before);
}

export function queryRoutes(app: Hono, deps: PrometheusReadDeps): void {
  const now = deps.now ?? Date.now;
  const instant = async (c: Context) => {
    const tenant = resolveTenant(c);
    const p = await readParams(c);
    const expr = parseQuery(p.get("query"));
    const time = parseTime("time", p.get("time"), now());
    if (p.get("timeout") !== undefined) parseDurationParam("timeout", p.get("timeout"));
    const seen = resolutionsFor(c);
    const answered = heapGrowth(deps);
    const r = await run(() => instantQuery(expr, new StoreSeriesSource(deps.store, tenant, seen), time, { offload: deps.offload }));
    return withResolution(respondResult(c, r, answered), seen);
  };
  const range = async (c: Context) => {
    const tenant = resolveTenant(c);
    const p = await readParams(c);
    const start = parseTime("start", p.get("start"));
    const end = parseTime("end", p.get("end"));
    if (end < start) throw badData(`invalid parameter "end": end timestamp must not be before start time`);
    const step = parseDurationParam("step", p.get("step"));
    if (step <= 0) throw badData(`invalid parameter "step": zero or negative query resolution step widths are not accepted. Try a positive integer`);
    if ((end - start) / step > MAX_POINTS) {
      throw badData("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)");
    }
    if (p.get("timeout") !== undefined) parseDurationParam("timeout", p.get("timeout"));
    const expr = parseQuery(p.get("query"));
    const seen = resolutionsFor(c);
    const answered = heapGrowth(deps);
    const r = await run(() => rangeQuery(expr, new StoreSeriesSource(deps.store, tenant, seen), start, end, step, { offload: deps.offload }));
    // Sent: the result's arrays are this query's alone, given back before the heap is looked at.
    return withResolution(
      respondResult(c, r, () => {
        releaseRangeResult(r);
        answered?.();
      }),
      seen,
    );
  };
  app.get("/api/v1/query", instant);
  app.post("/api/v1/query", instant);
  app.get("/api/v1/query_range", range);
  app.post("/api/v1/query_range", range);
}
