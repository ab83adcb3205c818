/**
 * OTLP/HTTP metrics on the agent's local API: `POST /v1/metrics` (protobuf or JSON, gzip),
 * what an OpenTelemetry SDK's OTLP exporter sends when pointed at the agent. Converted by the
 * compatibility rules (src/otlp/to-series.ts), plus the agent's feed label; refused points are
 * answered as OTLP's partial success.
 */
import { Hono } from "hono";
import { bodyLimitOf } from "../../../src/http/body-limit.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { decodeOtlpMetrics, otlpEncoding, otlpError, OtlpHttpError, otlpSuccess } from "../../../src/otlp/http.ts";
import { DeltaTotals, otlpToSeries } from "../../../src/otlp/to-series.ts";
import { bufferRefusal } from "../../http/buffer-refusal.ts";
import { acceptedPushBody, type PushInputDeps } from "../input-deps.ts";

export interface OtlpRoutesDeps extends PushInputDeps {
  staleMarker?: number;
}

export function otlpRoutes(d: OtlpRoutesDeps): Hono {
  const app = new Hono({ strict: false });
  const now = d.now ?? Date.now;
  const deltas = new DeltaTotals();
  app.post("/v1/metrics", async (c) => {
    const body = await acceptedPushBody(c, d, { name: "OTLP", section: "agent.inputs.otlp" });
    const { encoding, request } = decodeOtlpMetrics(body, c.req.header("Content-Type"), c.req.header("Content-Encoding"), bodyLimitOf(c));
    const conv = otlpToSeries(request, deltas, { now: now(), staleMarker: d.staleMarker });
    try {
      if (conv.samples.length > 0) await d.output.write(conv.samples);
    } catch (e) {
      d.counters.dropped.inc(conv.samples.length);
      const refusal = bufferRefusal(e);
      return otlpError(encoding, refusal.status, refusal.message, refusal.headers);
    }
    d.counters.samples.inc(conv.samples.length);
    if (conv.rejected > 0) {
      d.counters.dropped.inc(conv.rejected);
      d.warn(c.req.header("User-Agent") ?? "otlp", "refused some OTLP data points", { points: conv.rejected, reasons: conv.reasons.join("; ") });
    }
    return otlpSuccess(encoding, conv.rejected, conv.reasons.join("; "));
  });
  app.onError((err, c) => {
    const encoding = otlpEncoding(c.req.header("Content-Type")) ?? "json";
    if (err instanceof OtlpHttpError || err instanceof ApiError) {
      if (err.status < 500 && err.status !== 404) {
        d.counters.errors.inc();
        d.warn(c.req.header("User-Agent") ?? "otlp", "refused an OTLP request", { status: err.status, err: err.message.slice(0, 200) });
      }
      return otlpError(err instanceof OtlpHttpError ? err.encoding : encoding, err.status, err.message, err instanceof ApiError ? err.headers : undefined);
    }
    d.log.error("OTLP request failed", { err: (err as Error)?.stack ?? String(err) });
    return otlpError(encoding, 500, `internal error: ${(err as Error)?.message ?? String(err)}`);
  });
  return app;
}
