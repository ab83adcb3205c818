import type { Hono } from "hono";
import { authorizeTenant } from "../src/http/access.ts";
import type { ServiceEnv } from "../src/http/service.ts";
import type { Logger } from "../src/log/logger.ts";
import type { MetricType, MetricWrite, Tags } from "../src/metrics/model.ts";
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

/**
 * Where a collector's own metrics go: `collector:<name>` for a collector alone; with several on
 * one database (docs/scale-out.md) each writes `collector:<node>:<name>`, tagged
 * `collector=<node>`, so that they do not overwrite each other's series.
 */
export function selfMetricNames(node: string | undefined): { prefix: string; tags?: Record<string, string> } {
  return node === undefined ? { prefix: SELF_METRIC_PREFIX } : { prefix: `${SELF_METRIC_PREFIX}${node}:`, tags: { collector: node } };
}

interface SelfMetricsStore {
  write(tenant: string, w: MetricWrite[]): Promise<void>;
  ensureTags(tenant: string, items: { type: MetricType; id: string; tags: Tags }[]): Promise<void>;
}

/** Stores the collector's own metrics every `intervalMs`; returns the stopper. */
export function storeSelfMetrics(
  t: Telemetry,
  store: SelfMetricsStore,
  tenant: string,
  intervalMs: number,
  log: Logger,
  names: { prefix: string; tags?: Record<string, string> } = selfMetricNames(undefined),
): () => void {
  if (intervalMs <= 0) return () => {};
  // Series tagged already: tags are set once per series (new ones appear with new label values).
  const tagged = new Set<string>();
  const round = async () => {
    const writes = telemetryWrites(t, names.prefix, Date.now());
    await store.write(tenant, writes);
    const tags = names.tags;
    if (!tags) return;
    const fresh = writes.filter((w) => !tagged.has(`${w.type}/${w.id}`));
    if (fresh.length === 0) return;
    await store.ensureTags(tenant, fresh.map((w) => ({ type: w.type, id: w.id, tags })));
    for (const w of fresh) tagged.add(`${w.type}/${w.id}`);
  };
  const timer = setInterval(() => {
    round().catch((e) => {
      // A full disk is logged once by the storage health, not every interval.
      if (storageFailure(e) === undefined) log.warn("storing own metrics failed", { err: (e as Error).message });
    });
  }, intervalMs);
  return () => clearInterval(timer);
}
