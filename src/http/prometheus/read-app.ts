import { Hono } from "hono";
import type { Logger } from "../../log/logger.ts";
import { ApiError } from "../errors.ts";
import { storeApiError } from "../service.ts";
import { metadataRoutes } from "./metadata-routes.ts";
import { queryRoutes } from "./query-routes.ts";
import type { PrometheusReadDeps } from "./read-deps.ts";
import { PromApiError, respondError } from "./respond.ts";

/**
 * The Prometheus HTTP API's query and discovery routes over a metrics reader, answering in
 * Prometheus' envelopes so that its clients (Grafana, promtool) work unchanged: the
 * collector's (which adds remote write through `more`) and the agent's local history.
 */
export function createPrometheusReadApp<D extends PrometheusReadDeps>(deps: D, log: Logger, more?: (app: Hono, deps: D) => void): Hono {
  const app = new Hono({ strict: false });
  queryRoutes(app, deps);
  metadataRoutes(app, deps);
  more?.(app, deps);
  app.onError((err, c) => {
    if (err instanceof PromApiError) return respondError(c, err.type, err.message);
    // Every refusal keeps its status and headers (a 507 on a full disk, 413, 415, the refusals of
    // docs/security.md, a 503 with Retry-After over the memory budget, damaged data): a 500 or a
    // 400 instead would hide the cause from the sender and its operator.
    const api = err instanceof ApiError ? err : storeApiError(err);
    if (api) {
      const type = api.status === 503 ? "unavailable" : api.status >= 500 ? "internal" : api.status === 404 ? "not_found" : "bad_data";
      return respondError(c, type, api.message, api.headers, api.status);
    }
    log.error("prometheus API request failed", { path: c.req.path, err: (err as Error)?.stack ?? String(err) });
    return respondError(c, "internal", `internal error: ${(err as Error)?.message ?? String(err)}`);
  });
  return app;
}
