import type { Hono } from "hono";
import { createPrometheusReadApp } from "../../../src/http/prometheus/read-app.ts";
import type { Logger } from "../../../src/log/logger.ts";
import type { PrometheusDeps } from "./deps.ts";
import { writeRoutes } from "./write-routes.ts";

/** Prometheus paths under which `/api/v1/…` is served: per tenant in the path, and with the tenant header. */
export const PROMETHEUS_PREFIXES = ["/prometheus/:tenant", ""] as const;

/**
 * The Prometheus HTTP API (query, discovery, remote write) over Outpost's store, answering in
 * Prometheus' envelopes so that its clients (Grafana, promtool) work unchanged.
 */
export function createPrometheusApp(deps: PrometheusDeps, log: Logger): Hono {
  return createPrometheusReadApp(deps, log, (app, d) => writeRoutes(app, d));
}
