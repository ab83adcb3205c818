import { ModelNotReadyError } from "../../../src/forecast/forecaster.ts";
import { readJson } from "../../../src/http/body.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { jsonOr204, jsonResponse } from "../../../src/http/json.ts";
import { absoluteUrl, createServiceApp, requireTenant, Routes, type ServiceContext } from "../../../src/http/service.ts";
import { parseWith } from "../../../src/http/validate.ts";
import { SubscriptionExistsError, SubscriptionNotFoundError } from "../../forecast/errors.ts";
import type { ForecastingService } from "../../forecast/service.ts";
import { blueprintSchema, forecasterUpdateSchema, forecastQuerySchema, learnBodySchema, metricUpdateSchema } from "./schemas.ts";
import { subscriptionJson } from "./wire.ts";

export interface DataminingDeps {
  forecasting: ForecastingService;
}

/** The operations of the interface, as GET / lists them. */
const ENDPOINTS = [
  ["GET", "/metrics", "subscriptions of the tenant"],
  ["POST", "/metrics", "subscribe a metric for forecasting (RestBlueprint)"],
  ["GET", "/metrics/{metricId}", "one subscription with its model"],
  ["PUT", "/metrics/{metricId}", "change collectionInterval and forecaster settings (Update)"],
  ["DELETE", "/metrics/{metricId}", "unsubscribe"],
  ["PUT", "/metrics/{metricId}/forecaster", "change forecaster settings (Update)"],
  ["GET", "/metrics/{metricId}/forecaster/forecast", "forecast ?ahead=N points"],
  ["POST", "/metrics/{metricId}/forecaster/learn", "learn data points [{timestamp, value}]"],
].map(([method, path, description]) => ({ method, path, description }));

type Handler = (c: ServiceContext) => Response | Promise<Response>;

/** Domain errors become the statuses upstream answers with (see docs/forecasting.md). */
function withDomainErrors(h: Handler): Handler {
  return async (c) => {
    try {
      return await h(c);
    } catch (e) {
      if (e instanceof SubscriptionNotFoundError) throw new ApiError(404, e.message);
      if (e instanceof SubscriptionExistsError) throw new ApiError(409, e.message);
      if (e instanceof ModelNotReadyError) throw new ApiError(400, e.message);
      throw e;
    }
  };
}

const id = (c: ServiceContext) => c.req.param("metricId")!;

export function createDataminingApp(deps: DataminingDeps) {
  const svc = deps.forecasting;
  const app = createServiceApp();
  app.use("*", requireTenant({ exempt: (p) => p === "/" }));
  const r = new Routes(app);
  const on = (method: "get" | "post" | "put" | "delete", path: string, h: Handler) => r[method](path, withDomainErrors(h));

  on("get", "/", (c) => jsonResponse(c, 200, ENDPOINTS));

  on("get", "/metrics", (c) => jsonOr204(c, svc.list(c.get("tenant")).map(subscriptionJson)));

  on("post", "/metrics", async (c) => {
    const bp = parseWith(blueprintSchema, await readJson(c), "RestBlueprint");
    await svc.subscribe(c.get("tenant"), bp);
    return c.body(null, 201, { Location: absoluteUrl(c, `/metrics/${encodeURIComponent(bp.metricId)}`) });
  });

  on("get", "/metrics/:metricId", (c) => jsonResponse(c, 200, subscriptionJson(svc.get(c.get("tenant"), id(c)))));

  on("put", "/metrics/:metricId", async (c) => {
    await svc.update(c.get("tenant"), id(c), parseWith(metricUpdateSchema, await readJson(c), "Update"));
    return c.body(null, 204);
  });

  on("delete", "/metrics/:metricId", async (c) => {
    await svc.unsubscribe(c.get("tenant"), id(c));
    return c.body(null, 204);
  });

  on("put", "/metrics/:metricId/forecaster", async (c) => {
    await svc.update(c.get("tenant"), id(c), parseWith(forecasterUpdateSchema, await readJson(c), "Update"));
    return c.body(null, 204);
  });

  on("get", "/metrics/:metricId/forecaster/forecast", (c) => {
    const { ahead } = parseWith(forecastQuerySchema, c.req.query(), "query parameter");
    return jsonResponse(c, 200, svc.forecast(c.get("tenant"), id(c), ahead), { raw: true });
  });

  on("post", "/metrics/:metricId/forecaster/learn", async (c) => {
    await svc.learn(c.get("tenant"), id(c), parseWith(learnBodySchema, await readJson(c), "data points"));
    return c.body(null, 204);
  });

  return r.finish();
}
