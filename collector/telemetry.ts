import type { Hono } from "hono";
import { authorizeTenant } from "../src/http/access.ts";
import type { ServiceEnv } from "../src/http/service.ts";
import type { Logger } from "../src/log/logger.ts";
import type { MetricWrite } from "../src/metrics/model.ts";
import { storageFailure } from "../src/sqlite/storage-failure.ts";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheus, type Telemetry, telemetryWrites } from "../src/telemetry/registry.ts";

/**
 * GET /metrics at the root (outside /svc) in the Prometheus text format. They are the
 * collector's own metrics, stored under `selfTenant`: with an auth file, a credential holding
 * that tenant (or an admin) may read them.
 */
export function servePrometheus(app: Hono<ServiceEnv>, t: Telemetry, selfTenant: string): void {
  app.get("/metrics", (c) => {
    authorizeTenant(c, selfTenant);
    return c.body(renderPrometheus(t), 200, { "Content-Type": PROMETHEUS_CONTENT_TYPE });
  });
}

/** Id prefix of the collector's own metrics in the store. */
export const SELF_METRIC_PREFIX = "collector:";

/** Stores the collector's own metrics every `intervalMs`; returns the stopper. */
export function storeSelfMetrics(
  t: Telemetry,
  store: { write(tenant: string, w: MetricWrite[]): Promise<void> },
  tenant: string,
  intervalMs: number,
  log: Logger,
): () => void {
  if (intervalMs <= 0) return () => {};
  const timer = setInterval(() => {
    store.write(tenant, telemetryWrites(t, SELF_METRIC_PREFIX, Date.now())).catch((e) => {
      // A full disk is logged once by the storage health, not every interval.
      if (storageFailure(e) === undefined) log.warn("storing own metrics failed", { err: (e as Error).message });
    });
  }, intervalMs);
  return () => clearInterval(timer);
}
