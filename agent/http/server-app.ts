import { type Context, Hono } from "hono";
import type { LocalReadOptions } from "./read-api.ts";
import { type BodyLimit, limitBodies } from "../../src/http/body-limit.ts";
import { corsMiddleware } from "../../src/http/cors.ts";
import { hostCheck } from "../../src/http/host-check.ts";
import type { Logger } from "../../src/log/logger.ts";
import { errorResponse, mountService, type ServiceEnv } from "../../src/http/service.ts";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus, type Telemetry } from "../../src/telemetry/registry.ts";
import { ON_SITE_STATUS_API } from "../../src/http/console/names.ts";
import { ASSETS_PREFIX, CONSOLE_PAGES, SESSION_API } from "../../src/http/console/paths.ts";
import type { OnSiteHandlers, OnSiteOptions } from "./on-site/on-site-app.ts";
import { onSiteSessions } from "./on-site/read-scope.ts";
import { requireApiToken, tokenMatcher } from "./token-check.ts";
import { createWriteApi, type WriteSink } from "./write-api.ts";

/** Where existing Hawkular clients expect the metrics interface. */
export const WRITE_API_ROOTS = ["/svc/metrics", "/hawkular/metrics"];

/** The on-site view as the agent configures it; the api token's login is added here. */
export type OnSiteServing = Omit<OnSiteOptions, "login" | "log">;

/**
 * The agent's HTTP server: the local write API, the inputs' routes (OTLP, Influx), /metrics for
 * Prometheus and /health (always open), the reads of its local history and its on-site view.
 * Other sites' pages get nothing from it: a request from another origin is refused (no CORS),
 * and one for a host name the agent is not known by (a DNS rebinding) too.
 */
export function createAgentApp(
  tenant: string,
  sink: WriteSink,
  telemetry: Telemetry,
  log: Logger,
  o: { bodies?: BodyLimit; apiToken?: string; inputs?: Hono[]; allowedHost?: (host: string) => boolean; reads?: LocalReadOptions; onSite?: OnSiteServing } = {},
) {
  const { bodies, apiToken } = o;
  const app = new Hono<ServiceEnv>();
  if (o.allowedHost) app.use("*", hostCheck(o.allowedHost, "--allowed-hosts", log));
  app.use("*", corsMiddleware({ origins: [] }));
  if (bodies) app.use("*", limitBodies(bodies));
  app.get("/health", (c) => c.json({ status: "UP" }));
  const sessions = o.onSite && apiToken !== undefined ? onSiteSessions() : undefined;
  const onSite = o.onSite && mountOnSite(app, { ...o.onSite, login: sessions && { matches: tokenMatcher(apiToken!), sessions }, log: log.child("on-site") });
  if (apiToken !== undefined) app.use("*", requireApiToken(apiToken, sessions));
  if (onSite) app.get(ON_SITE_STATUS_API, async (c) => (await onSite()).status(c));
  app.get("/metrics", (c) => c.body(renderPrometheus(telemetry), 200, { "Content-Type": PROMETHEUS_CONTENT_TYPE }));
  for (const routes of o.inputs ?? []) app.route("/", routes);
  if (o.reads) {
    // Reads of the local history: GET under the metrics roots, and the Prometheus API, by the
    // collector's code, loaded on the first read (read-api.ts).
    const reads = o.reads;
    let loaded: Promise<(req: Request) => Promise<Response>> | undefined;
    const load = () => (loaded ??= import("./read-api.ts").then((m) => m.createReadApp(reads, WRITE_API_ROOTS)));
    // The multi-metric write paths stay the write API's (405 for GET, as before).
    const writeOnly = new RegExp(`^(${WRITE_API_ROOTS.join("|")})/(metrics|gauges|counters|availability|strings)/raw/?$`);
    const forward = async (c: Context<ServiceEnv>, next: () => Promise<void>) => {
      if (c.req.method !== "POST" && writeOnly.test(c.req.path)) return next();
      return (await load())(c.req.raw);
    };
    for (const root of WRITE_API_ROOTS) {
      app.on(["GET", "HEAD"], [root, `${root}/*`], forward);
      // The POST forms of reads (`/gauges/raw/query`, `/metrics/stats/query`...).
      app.use(`${root}/*`, async (c, next) => (c.req.method === "POST" && c.req.path.endsWith("/query") ? forward(c, next) : next()));
    }
    app.all("/prometheus/:tenant/api/v1/*", forward);
    app.all("/api/v1/*", forward);
  }
  mountService(app, WRITE_API_ROOTS, createWriteApi(tenant, sink));
  app.notFound((c) => c.json({ errorMsg: `No resource at ${c.req.path}` }, 404));
  app.onError((err, c) => errorResponse(err, c, log));
  return app;
}

/**
 * The on-site view's open paths (its page, assets and session API: nothing of the agent's data
 * in them), before the api token's check; its code is loaded at the first of them. Returns the
 * handlers' loader, for the status route behind the check.
 */
function mountOnSite(app: Hono<ServiceEnv>, options: OnSiteOptions): () => Promise<OnSiteHandlers> {
  let loaded: Promise<OnSiteHandlers> | undefined;
  const handlers = () => (loaded ??= import("./on-site/on-site-app.ts").then((m) => m.createOnSiteHandlers(options)));
  for (const path of CONSOLE_PAGES) app.get(path, async (c) => (await handlers()).page(c));
  app.get(`${ASSETS_PREFIX}:name`, async (c) => (await handlers()).asset(c));
  app.get(SESSION_API.session, async (c) => (await handlers()).session(c));
  app.post(SESSION_API.login, async (c) => (await handlers()).login(c));
  app.post(SESSION_API.logout, async (c) => (await handlers()).logout(c));
  return handlers;
}
