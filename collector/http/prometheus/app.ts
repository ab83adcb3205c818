import { Hono } from "hono";
import { ApiError } from "../../../src/http/errors.ts";
import { storeApiError } from "../../../src/http/service.ts";
import type { Logger } from "../../../src/log/logger.ts";
import type { PrometheusDeps } from "./deps.ts";
import { metadataRoutes } from "./metadata-routes.ts";
import { queryRoutes } from "./query-routes.ts";
import { PromApiError, respondError } from "./respond.ts";
import { writeRoutes } from "./write-routes.ts";

/** Prometheus paths under which `/api/v1/…` is served: per tenant in the path, and with the tenant header. */
export const PROMETHEUS_PREFIXES = ["/prometheus/:tenant", ""] as const;

/**
 * The Prometheus HTTP API (query, discovery, remote write) over Outpost's store, answering in
 * Prometheus' envelopes so that its clients (Grafana, promtool) work unchanged.
 */
export function createPrometheusApp(deps: PrometheusDeps, log: Logger): Hono {
  const app = new Hono({ strict: false });
  queryRoutes(app, deps);
  metadataRoutes(app, deps);
  writeRoutes(app, deps);
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
