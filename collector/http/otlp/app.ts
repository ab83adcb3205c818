/**
 * OTLP/HTTP metrics into the collector: `POST /otlp/{tenant}/v1/metrics`, or `/v1/metrics` with
 * the tenant header (an SDK's exporter sets `headers`). Converted by the same code as the
 * agent's input (src/otlp/), stored through the remote-write path (labels first, then points).
 * Delta sums and histograms are accumulated per tenant in memory: a restart of the collector
 * restarts their totals, which `rate` reads as a counter reset.
 */
import { Hono } from "hono";
import { bodyLimitOf, readBodyBytes } from "../../../src/http/body-limit.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { storeApiError } from "../../../src/http/service.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { decodeOtlpMetrics, otlpEncoding, otlpError, OtlpHttpError, otlpSuccess } from "../../../src/otlp/http.ts";
import { DeltaTotals, otlpToSeries } from "../../../src/otlp/to-series.ts";
import { type ForeignSeries, writeForeignSeries } from "../../metrics/foreign-writes.ts";
import type { WriteDeps } from "../../metrics/write-points.ts";
import { PromApiError } from "../../../src/http/prometheus/respond.ts";
import { resolveTenant } from "../../../src/http/prometheus/tenant.ts";

export const OTLP_PREFIXES = ["/otlp/:tenant", ""] as const;

export function createOtlpApp(deps: WriteDeps & { now?: () => number }, log: Logger): Hono {
  const app = new Hono({ strict: false });
  const now = deps.now ?? Date.now;
  const deltas = new Map<string, DeltaTotals>();
  app.post("/v1/metrics", async (c) => {
    const tenant = resolveTenant(c);
    const { encoding, request } = decodeOtlpMetrics(await readBodyBytes(c), c.req.header("Content-Type"), c.req.header("Content-Encoding"), bodyLimitOf(c));
    let totals = deltas.get(tenant);
    if (!totals) deltas.set(tenant, (totals = new DeltaTotals()));
    const conv = otlpToSeries(request, totals, { now: now() });
    const series: ForeignSeries[] = conv.samples.map((s) => ({ name: s.name, labels: s.labels, type: "gauge", points: [{ timestamp: s.timestamp, value: s.value }] }));
    if (series.length > 0) await writeForeignSeries(deps, tenant, series, "otlp");
    return otlpSuccess(encoding, conv.rejected, conv.reasons.join("; "));
  });
  app.onError((err, c) => {
    const encoding = err instanceof OtlpHttpError ? err.encoding : (otlpEncoding(c.req.header("Content-Type")) ?? "json");
    if (err instanceof OtlpHttpError || err instanceof PromApiError) return otlpError(encoding, err instanceof OtlpHttpError ? err.status : 400, err.message);
    // Every refusal keeps its status and headers (507 on a full disk, 503 with Retry-After).
    const api = err instanceof ApiError ? err : storeApiError(err);
    if (api) return otlpError(encoding, api.status, api.message, api.headers);
    log.error("OTLP write failed", { path: c.req.path, err: (err as Error)?.stack ?? String(err) });
    return otlpError(encoding, 500, `internal error: ${(err as Error)?.message ?? String(err)}`);
  });
  return app;
}
