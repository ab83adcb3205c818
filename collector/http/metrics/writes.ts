import { jsonText, parseJsonBody, readJson } from "../../../src/http/body.ts";
import { readBodyBytes, releaseBody } from "../../../src/http/body-limit.ts";
import { emptyOk } from "../../../src/http/json.ts";
import type { Routes, ServiceContext } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";
import { METRIC_TYPES, type MetricWrite, TYPE_PATH } from "../../../src/metrics/model.ts";
import { metricIdProblem } from "../../../src/metrics/limits.ts";
import { normalizedMetricsBody, normalizedPointsBody } from "../../../src/metrics/normalized.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { metricsBodySchema, mixedBodySchema, pointsBodySchema } from "../../../src/metrics/schemas.ts";
import { isColumnType } from "../../../src/metrics/write-columns.ts";
import { writeColumns, writePoints } from "../../metrics/write-points.ts";
import type { MetricsDeps } from "./deps.ts";

async function store(c: ServiceContext, deps: MetricsDeps, writes: MetricWrite[]): Promise<Response> {
  await writePoints(deps, c.get("tenant"), writes, "http");
  return emptyOk(c);
}

/** Data-point writes; `/data` paths are the deprecated aliases of `/raw`. */
export function writeRoutes(r: Routes, deps: MetricsDeps): void {
  const mixed = async (c: ServiceContext) => store(c, deps, parseWith(mixedBodySchema, await readJson(c), "request body"));
  r.post("/metrics/raw", mixed);
  r.post("/metrics/data", mixed);
  for (const type of METRIC_TYPES) {
    const base = `/${TYPE_PATH[type]}`;
    const schema = metricsBodySchema(type);
    // Gauge and counter bodies may go to the worker (the types it makes columns of).
    const columnType = isColumnType(type) ? type : undefined;
    const offload = columnType && deps.jsonOffload;
    const many = async (c: ServiceContext) => {
      let body: unknown;
      if (offload && columnType) {
        // A large body is parsed by the worker thread into columns; anything it does not take
        // (small, not normalized, malformed, worker lost) is parsed here as before. Read as
        // bytes, which go as soon as the body is parsed (releaseBody).
        const bytes = await readBodyBytes(c);
        try {
          const parsed = await offload.parse(columnType, bytes);
          if (parsed) {
            try {
              await writeColumns(deps, c.get("tenant"), parsed.cols, "http");
            } finally {
              parsed.release();
            }
            return emptyOk(c);
          }
          body = parseJsonBody(jsonText(bytes));
        } finally {
          releaseBody(bytes);
        }
      } else body = await readJson(c);
      return store(c, deps, normalizedMetricsBody(type, body) ?? parseWith(schema, body, "request body"));
    };
    r.post(`${base}/raw`, many);
    r.post(`${base}/data`, many);
  }
}

export function writeByIdRoutes(r: Routes, deps: MetricsDeps): void {
  for (const type of METRIC_TYPES) {
    const schema = pointsBodySchema(type);
    const one = async (c: ServiceContext) => {
      const id = c.req.param("id")!;
      const problem = metricIdProblem(id);
      if (problem) throw new ApiError(400, problem);
      const body = await readJson(c);
      const points = normalizedPointsBody(type, body) ?? parseWith(schema, body, "data points");
      return store(c, deps, [{ type, id, points }]);
    };
    r.post(`/${TYPE_PATH[type]}/:id/raw`, one);
    r.post(`/${TYPE_PATH[type]}/:id/data`, one);
  }
}
