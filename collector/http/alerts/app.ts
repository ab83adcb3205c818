import { createServiceApp, requireTenant, Routes } from "../../../src/http/service.ts";
import { actionRoutes } from "./actions.ts";
import { adminRoutes } from "./admin.ts";
import { alertByIdRoutes, alertRoutes } from "./alerts.ts";
import type { AlertsHttpDeps } from "./deps.ts";
import { eventRoutes } from "./events.ts";
import { groupRoutes } from "./groups.ts";
import { alertsRouter } from "./router.ts";
import { transferRoutes } from "./transfer.ts";
import { triggerByIdRoutes, triggerRoutes } from "./triggers.ts";
import { watchRoutes } from "./watch.ts";

/** The alerting interface (/svc/alerts and /hawkular/alerts), first and second versions. */
export function createAlertsApp(deps: AlertsHttpDeps) {
  const app = createServiceApp();
  app.use("*", requireTenant({ exempt: (p) => p === "/status", message: (header) => `${header} header is required` }));
  const r = new Routes(app);
  r.get("/status", (c) => c.json({ status: "STARTED", "Implementation-Version": deps.version }));
  const route = alertsRouter(r);
  // Literal paths before the parameterised ones that would capture them.
  triggerRoutes(route, deps);
  groupRoutes(route, deps);
  triggerByIdRoutes(route, deps);
  actionRoutes(route, deps);
  eventRoutes(route, deps);
  adminRoutes(route, deps);
  watchRoutes(route, deps);
  transferRoutes(route, deps);
  alertRoutes(route, deps);
  alertByIdRoutes(route, deps);
  return r.finish();
}
