import { Hono, type MiddlewareHandler } from "hono";
import type { BaseUrlPolicy } from "../../src/http/base-url.ts";
import { type CorsOptions, corsMiddleware } from "../../src/http/cors.ts";
import { hostCheck } from "../../src/http/host-check.ts";
import {
  errorResponse,
  mountService,
  type Readiness,
  requireReady,
  type ServiceEnv,
} from "../../src/http/service.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { AuthGate } from "../auth/gate.ts";
import { authenticate } from "./authenticate.ts";
import { SESSION_API } from "../../src/http/console/paths.ts";

export interface ServiceApps {
  /** Service name (metrics, alerts, inventory, datamining) → its app. */
  [name: string]: Hono<ServiceEnv>;
}

/** Every interface is served under /svc/NAME and, for existing clients, /hawkular/NAME. */
export const SERVICE_ROOTS = ["/svc", "/hawkular"] as const;

/** Apps mounted at the root under prefixes of their own (Prometheus API, Influx writes). */
export interface RootMount {
  prefixes: readonly string[];
  app: Hono;
}

export interface RootOptions {
  /** Cross-origin access for browsers; absent: none (--cors-origins). */
  cors?: CorsOptions;
  /** Host headers answered (--allowed-hosts; src/http/host-check.ts); absent: any. */
  allowedHost?: (host: string) => boolean;
  /** Routes served at the root beside the services (e.g. /metrics). */
  extra?: (app: Hono<ServiceEnv>) => void;
  /** Checks credentials on every request; none without --auth-file (loopback only). */
  gate?: AuthGate;
  /** Where Location headers point (--external-url, --trusted-proxies). */
  base?: BaseUrlPolicy;
  /** Apps under prefixes of their own (Prometheus API, Influx writes). */
  mounts?: readonly RootMount[];
  /** Wraps every request, first of all (request counts and latencies, also of refused ones). */
  observe?: MiddlewareHandler;
  /** What /ready answers (collector/readiness.ts); absent: the same as /health. */
  readyCheck?: () => Promise<{ ready: boolean; reason?: string; storage: string }>;
}

/** The paths that answer 503 until storage is ready. */
const READY_PATHS = [...SERVICE_ROOTS.map((r) => `${r}/*`), "/prometheus/*", "/influx/*", "/api/v1/*", "/api/v2/*", "/write", SESSION_API.session];

export function createRootApp(services: ServiceApps, readiness: Readiness, log: Logger, options: RootOptions = {}): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>({ strict: false });
  if (options.observe) app.use("*", options.observe);
  // First: a request for a name this server is not known by is a DNS rebinding, whatever it asks.
  if (options.allowedHost) app.use("*", hostCheck(options.allowedHost, "--allowed-hosts", log));
  // Before authentication, so that browsers' preflight requests are answered without credentials.
  app.use("*", corsMiddleware(options.cors ?? { origins: [] }));
  // Before any route, so every interface (also those mounted below) needs credentials.
  app.use("*", authenticate(options.gate, options.base?.trustedProxy));
  for (const path of READY_PATHS) app.use(path, requireReady(readiness));
  // Liveness: the process serves HTTP (503 only while it starts).
  app.get("/health", (c) => c.json({ status: readiness.ready() ? "UP" : "STARTING" }, readiness.ready() ? 200 : 503));
  // Readiness: it can serve data now (docs/operations.md, "Liveness and readiness").
  app.get("/ready", async (c) => {
    const r = options.readyCheck ? await options.readyCheck() : { ready: readiness.ready(), storage: "ok", reason: readiness.ready() ? undefined : "starting" };
    return c.json({ status: r.ready ? "READY" : "NOT_READY", storage: r.storage, reason: r.reason }, r.ready ? 200 : 503, { "Cache-Control": "no-store" });
  });
  options.extra?.(app);
  for (const [name, svc] of Object.entries(services)) {
    mountService(
      app,
      SERVICE_ROOTS.map((r) => `${r}/${name}`),
      svc,
      options.base,
    );
  }
  for (const m of options.mounts ?? []) for (const prefix of m.prefixes) app.route(prefix || "/", m.app);
  app.notFound((c) => c.json({ errorMsg: `No resource at ${c.req.path}` }, 404));
  app.onError((err, c) => errorResponse(err, c, log));
  return app;
}
