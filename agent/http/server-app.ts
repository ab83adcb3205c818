import { type Context, Hono } from "hono";
import type { LocalReadOptions } from "./read-api.ts";
import { type BodyLimit, limitBodies } from "../../src/http/body-limit.ts";
import { corsMiddleware } from "../../src/http/cors.ts";
import { hostCheck } from "../../src/http/host-check.ts";
import type { Logger } from "../../src/log/logger.ts";
import { errorResponse, mountService, type ServiceEnv } from "../../src/http/service.ts";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus, type Telemetry } from "../../src/telemetry/registry.ts";
import { requireApiToken } from "./token-check.ts";
import { createWriteApi, type WriteSink } from "./write-api.ts";

/** Where existing Hawkular clients expect the metrics interface. */
export const WRITE_API_ROOTS = ["/svc/metrics", "/hawkular/metrics"];

/**
 * The agent's HTTP server: the local write API, the inputs' routes (OTLP, Influx), /metrics for
 * Prometheus and /health (always open). Browsers' pages get nothing from it: a request from
 * another origin is refused (no CORS), and one for a host name the agent is not known by (a DNS
 * rebinding) too.
 */
export function createAgentApp(
  tenant: string,
  sink: WriteSink,
  telemetry: Telemetry,
  log: Logger,
  o: { bodies?: BodyLimit; apiToken?: string; inputs?: Hono[]; allowedHost?: (host: string) => boolean; reads?: LocalReadOptions } = {},
) {
  const { bodies, apiToken } = o;
  const app = new Hono<ServiceEnv>();
  if (o.allowedHost) app.use("*", hostCheck(o.allowedHost, "--allowed-hosts", log));
  app.use("*", corsMiddleware({ origins: [] }));
  if (bodies) app.use("*", limitBodies(bodies));
  app.get("/health", (c) => c.json({ status: "UP" }));
  if (apiToken !== undefined) app.use("*", requireApiToken(apiToken));
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
