import { Hono } from "hono";
import type { Logger } from "../../src/log/logger.ts";
import {
  corsForBrowsers,
  errorResponse,
  mountService,
  type Readiness,
  requireReady,
  type ServiceEnv,
} from "../../src/http/service.ts";

export interface ServiceApps {
  /** Service name (metrics, alerts, inventory, datamining) → its app. */
  [name: string]: Hono<ServiceEnv>;
}

/** Every interface is served under /svc/NAME and, for existing clients, /hawkular/NAME. */
export const SERVICE_ROOTS = ["/svc", "/hawkular"] as const;

export function createRootApp(services: ServiceApps, readiness: Readiness, log: Logger, extra?: (app: Hono<ServiceEnv>) => void): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>({ strict: false });
  app.use("*", corsForBrowsers);
  for (const root of SERVICE_ROOTS) app.use(`${root}/*`, requireReady(readiness));
  app.get("/health", (c) => c.json({ status: readiness.ready() ? "UP" : "STARTING" }, readiness.ready() ? 200 : 503));
  extra?.(app);
  for (const [name, svc] of Object.entries(services)) {
    mountService(
      app,
      SERVICE_ROOTS.map((r) => `${r}/${name}`),
      svc,
    );
  }
  app.notFound((c) => c.json({ errorMsg: `No resource at ${c.req.path}` }, 404));
  app.onError((err, c) => errorResponse(err, c, log));
  return app;
}
