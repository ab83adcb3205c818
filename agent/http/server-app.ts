import { Hono } from "hono";
import type { Logger } from "../../src/log/logger.ts";
import { errorResponse, mountService, type ServiceEnv } from "../../src/http/service.ts";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus, type Telemetry } from "../../src/telemetry/registry.ts";
import { createWriteApi, type WriteSink } from "./write-api.ts";

/** Where existing Hawkular clients expect the metrics interface. */
export const WRITE_API_ROOTS = ["/svc/metrics", "/hawkular/metrics"];

/** The agent's HTTP server: the local write API, /metrics for Prometheus and /health. */
export function createAgentApp(tenant: string, sink: WriteSink, telemetry: Telemetry, log: Logger) {
  const app = new Hono<ServiceEnv>();
  app.get("/health", (c) => c.json({ status: "UP" }));
  app.get("/metrics", (c) => c.body(renderPrometheus(telemetry), 200, { "Content-Type": PROMETHEUS_CONTENT_TYPE }));
  mountService(app, WRITE_API_ROOTS, createWriteApi(tenant, sink));
  app.notFound((c) => c.json({ errorMsg: `No resource at ${c.req.path}` }, 404));
  app.onError((err, c) => errorResponse(err, c, log));
  return app;
}
