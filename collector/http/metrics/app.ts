import { createServiceApp, requireTenant, Routes, type ServiceContext } from "../../../src/http/service.ts";
import { definitionByIdRoutes, definitionRoutes } from "./definitions.ts";
import type { MetricsDeps } from "./deps.ts";
import { postQueryRoutes } from "../../../src/http/metrics/post-queries.ts";
import { rawReadByIdRoutes, rawReadRoutes } from "../../../src/http/metrics/raw-reads.ts";
import { statsByIdRoutes, statsRoutes } from "../../../src/http/metrics/stats-reads.ts";
import { tenantRoutes } from "./tenants.ts";
import { writeByIdRoutes, writeRoutes } from "./writes.ts";

/** Paths under the service root that need no tenant header (as upstream's tenant filter). */
const TENANT_FREE = /^\/(tenants|db|status|ping)(\/.*)?$/;

/** The metrics interface (/svc/metrics and /hawkular/metrics). */
export function createMetricsApp(deps: MetricsDeps) {
  const app = createServiceApp();
  app.use("*", requireTenant({ exempt: (p) => p === "/" || TENANT_FREE.test(p) }));
  // `/m` is a short alias of `/metrics` (0.2x).
  const r = new Routes(app, { "/metrics": "/m" });
  const info = { "Implementation-Version": deps.version, "Built-From-Git-SHA1": "outpost" };
  r.get("/", (c) => c.json({ name: "Hawkular-Metrics", ...info }));
  r.get("/status", (c) => c.json({ MetricsService: "STARTED", ...info }));
  const ping = (c: ServiceContext) => c.json({ value: new Date().toString() });
  r.get("/ping", ping);
  r.post("/ping", ping);
  tenantRoutes(r, deps);
  // Static paths of each family before the /{id} ones, which would otherwise capture them.
  writeRoutes(r, deps);
  statsRoutes(r, deps);
  postQueryRoutes(r, deps);
  rawReadRoutes(r, deps);
  definitionRoutes(r, deps);
  writeByIdRoutes(r, deps);
  rawReadByIdRoutes(r, deps);
  statsByIdRoutes(r, deps);
  definitionByIdRoutes(r, deps);
  return r.finish();
}
