import { Hono } from "hono";
import { ApiError } from "../../../src/http/errors.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { CorruptDataError } from "../../../src/sqlite/corrupt-data.ts";
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
    if (err instanceof CorruptDataError) return respondError(c, "unavailable", err.message);
    if (err instanceof ApiError) {
      // Statuses clients act on (415, and the refusals of docs/security.md) keep their code.
      if (err.status === 415 || err.status === 401 || err.status === 403 || err.status === 429) {
        return c.json({ status: "error", errorType: "bad_data", error: err.message, errorMsg: err.message }, err.status);
      }
      // Refusals to retry (request bodies over the memory budget or limit) stay 503, with their Retry-After.
      if (err.status === 503) return respondError(c, "unavailable", err.message, err.headers);
      return respondError(c, err.status >= 500 ? "internal" : "bad_data", err.message);
    }
    log.error("prometheus API request failed", { path: c.req.path, err: (err as Error)?.stack ?? String(err) });
    return respondError(c, "internal", `internal error: ${(err as Error)?.message ?? String(err)}`);
  });
  return app;
}
