/**
 * InfluxDB line protocol writes (Telegraf, Influx clients): POST /write (1.x) and
 * /api/v2/write (2.x). Each numeric or boolean field is a gauge `<measurement>_<field>` with the
 * line's tags as labels; a string field is a string metric of the same name.
 */
import { Hono } from "hono";
import { LineProtocolError } from "../../../src/influx/line-protocol.ts";
import { influxSamples } from "../../../src/influx/write-request.ts";
import { bodyLimitOf, readBodyBytes } from "../../../src/http/body-limit.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { storeApiError } from "../../../src/http/service.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { type ForeignSeries, writeForeignSeries } from "../../metrics/foreign-writes.ts";
import type { WriteDeps } from "../../metrics/write-points.ts";
import { PromApiError } from "../../../src/http/prometheus/respond.ts";
import { resolveTenant } from "../../../src/http/prometheus/tenant.ts";

export const INFLUX_PREFIXES = ["/influx/:tenant", ""] as const;

function influxError(message: string, status: ApiError["status"] = 400, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify({ error: message, errorMsg: message }), { status, headers: { "Content-Type": "application/json", ...headers } });
}

export function createInfluxApp(deps: WriteDeps & { now?: () => number }, log: Logger): Hono {
  const app = new Hono({ strict: false });
  const now = deps.now ?? Date.now;
  const write = (v2: boolean) => async (c: import("hono").Context) => {
    const tenant = resolveTenant(c);
    const samples = influxSamples({ body: await readBodyBytes(c), contentEncoding: c.req.header("Content-Encoding"), precision: c.req.query("precision"), v2, maxBytes: bodyLimitOf(c), now: now() });
    const series: ForeignSeries[] = samples.map((s) => ({ name: s.name, labels: s.labels, type: typeof s.value === "string" ? "string" : "gauge", points: [{ timestamp: s.timestamp, value: s.value }] }));
    await writeForeignSeries(deps, tenant, series, "influx");
    return c.body(null, 204);
  };
  app.post("/write", write(false));
  app.post("/api/v2/write", write(true));
  app.get("/ping", (c) => c.body(null, 204));
  app.onError((err, c) => {
    if (err instanceof LineProtocolError) return influxError(err.message);
    if (err instanceof PromApiError) return influxError(err.message);
    // Every refusal keeps its status and headers (a 507 on a full disk, a 503 with Retry-After over
    // the memory budget, a 400 for text PostgreSQL cannot hold): a 500 would hide the cause.
    const api = err instanceof ApiError ? err : storeApiError(err);
    if (api) return influxError(api.message, api.status, api.headers);
    log.error("influx write failed", { path: c.req.path, err: (err as Error)?.stack ?? String(err) });
    return influxError(`internal error: ${(err as Error)?.message ?? String(err)}`, 500);
  });
  return app;
}
