import type { Context } from "hono";
import { readJson } from "../../src/http/body.ts";
import { ApiError } from "../../src/http/errors.ts";
import { emptyOk } from "../../src/http/json.ts";
import { createServiceApp, type ServiceEnv, Routes, tenantHeader } from "../../src/http/service.ts";
import { parseWith } from "../../src/http/validate.ts";
import { type MetricWrite, PATH_TYPE, TYPE_PATH } from "../../src/metrics/model.ts";
import { isNormalizedId, normalizedMetricsBody, normalizedPointsBody } from "../../src/metrics/normalized.ts";
import { bufferRefusal } from "./buffer-refusal.ts";

/**
 * The schemas load zod (about 8 MB); an agent that nobody writes to, or that receives only
 * normalized points (src/metrics/normalized.ts), never needs them.
 */
const schemas = () => import("../../src/metrics/schemas.ts");

export interface WriteSink {
  accept(writes: MetricWrite[]): Promise<{ flagged: number }>;
}

/** Response header counting accepted points whose timestamps are far from the agent clock. */
export const FLAGGED_HEADER = "Outpost-Flagged-Timestamps";

/**
 * The agent's local write API: the same JSON as the collector's raw-write endpoints, for the
 * agent's own tenant only. A write is answered once it is committed to the buffer.
 */
export function createWriteApi(tenant: string, sink: WriteSink) {
  const app = createServiceApp();
  app.use("*", async (c, next) => {
    const t = tenantHeader(c);
    if (t !== undefined && t !== tenant) {
      throw new ApiError(403, `This agent forwards data of tenant '${tenant}' only, not '${t}'`);
    }
    c.set("tenant", tenant);
    await next();
  });

  const store = async (c: Context<ServiceEnv>, writes: MetricWrite[]) => {
    let flagged: number;
    try {
      ({ flagged } = await sink.accept(writes));
    } catch (e) {
      throw bufferRefusal(e);
    }
    if (flagged > 0) c.header(FLAGGED_HEADER, String(flagged));
    return emptyOk(c);
  };

  const r = new Routes(app);
  r.post("/metrics/raw", async (c) => store(c, parseWith((await schemas()).mixedBodySchema, await readJson(c), "metrics")));
  for (const type of Object.values(PATH_TYPE)) {
    const path = TYPE_PATH[type];
    r.post(`/${path}/raw`, async (c) => {
      const body = await readJson(c);
      return store(c, normalizedMetricsBody(type, body) ?? parseWith((await schemas()).metricsBodySchema(type), body, `${type} metrics`));
    });
    r.post(`/${path}/:id/raw`, async (c) => {
      const param = c.req.param("id");
      const body = await readJson(c);
      const fast = normalizedPointsBody(type, body);
      if (fast && isNormalizedId(param)) return store(c, [{ type, id: param, points: fast }]);
      const s = await schemas();
      const id = parseWith(s.metricIdSchema, param, "metric id");
      return store(c, [{ type, id, points: parseWith(s.pointsBodySchema(type), body, "data points") }]);
    });
  }
  return r.finish();
}
