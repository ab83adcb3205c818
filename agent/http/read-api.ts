import { Hono } from "hono";
import { definitionReadByIdRoutes, definitionReadRoutes } from "../../src/http/metrics/definition-reads.ts";
import { postQueryRoutes } from "../../src/http/metrics/post-queries.ts";
import { rawReadByIdRoutes, rawReadRoutes } from "../../src/http/metrics/raw-reads.ts";
import type { MetricsReadDeps } from "../../src/http/metrics/read-deps.ts";
import { statsByIdRoutes, statsRoutes } from "../../src/http/metrics/stats-reads.ts";
import { createPrometheusReadApp } from "../../src/http/prometheus/read-app.ts";
import type { Access } from "../../src/http/access.ts";
import { createServiceApp, errorResponse, mountService, Routes, type ServiceEnv, tenantHeader } from "../../src/http/service.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { MetricsReader } from "../../src/metrics/reader.ts";

/** Where the Prometheus API is served: per tenant in the path, and with the tenant header, as at the collector. */
export const LOCAL_PROMETHEUS_PREFIXES = ["/prometheus/:tenant", ""];

export interface LocalReadOptions {
  tenant: string;
  store: MetricsReader;
  /** The window, in days: the retention `fromEarliest` reads assume. */
  retentionDays: number;
  version: string;
  log: Logger;
  now?: () => number;
}

/**
 * Reads of the agent's own series (docs/storage.md, "The agent's local history"), with the
 * collector's paths, parameters and answers, by the collector's own route code: raw points,
 * rates, bucketed stats and definitions of the metrics interface (registered in the
 * collector's order: static paths of each family before the per-metric ones), and the
 * Prometheus query and discovery API. Read-only, for the agent's tenant only (403 for any
 * other); the agent's api token is checked before any of it. Loaded on the first read, so an
 * agent nobody reads from never loads zod and the PromQL parser.
 */
export function createReadApp(o: LocalReadOptions, roots: readonly string[]): (req: Request) => Promise<Response> {
  const access: Access = { name: "local api", admin: false, tenants: new Set([o.tenant]) };
  const root = new Hono<ServiceEnv>({ strict: false });
  root.use("*", async (c, next) => {
    c.set("access", access);
    await next();
  });

  const metrics = createServiceApp();
  const deps: MetricsReadDeps = { store: o.store, defaultRetentionDays: o.retentionDays, now: o.now };
  // The agent's tenant unless another is named (then 403).
  metrics.use("*", async (c, next) => {
    const t = tenantHeader(c) ?? o.tenant;
    if (t !== o.tenant) return c.json({ errorMsg: `This agent serves the data of tenant '${o.tenant}' only, not '${t}'` }, 403);
    c.set("tenant", t);
    await next();
  });
  const r = new Routes(metrics, { "/metrics": "/m" });
  statsRoutes(r, deps);
  postQueryRoutes(r, deps);
  rawReadRoutes(r, deps);
  definitionReadRoutes(r, deps);
  rawReadByIdRoutes(r, deps);
  statsByIdRoutes(r, deps);
  definitionReadByIdRoutes(r, deps);
  mountService(root, [...roots], r.finish());

  const prometheus = createPrometheusReadApp({ store: o.store, version: o.version, now: o.now }, o.log);
  for (const prefix of LOCAL_PROMETHEUS_PREFIXES) root.route(prefix || "/", prometheus);
  root.onError((err, c) => errorResponse(err, c, o.log));
  // Without a tenant named, the agent's own (the collector would ask for one: it holds many).
  return async (req) => {
    if (req.headers.has("Svc-Tenant") || req.headers.has("Hawkular-Tenant")) return root.fetch(req);
    const headers = new Headers(req.headers);
    headers.set("Svc-Tenant", o.tenant);
    return root.fetch(new Request(req, { headers }));
  };
}
