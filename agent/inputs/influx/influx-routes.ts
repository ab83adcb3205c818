/**
 * The Influx line protocol on the agent's local API: `POST /write` (1.x clients, Telegraf's
 * influxdb output) and `/api/v2/write` (2.x clients), mapped as the collector's Influx route
 * maps them (src/influx/write-request.ts), plus the agent's feed label. Everything is written
 * in the agent's tenant: the database, bucket and organization parameters are not used.
 */
import { Hono } from "hono";
import { bodyLimitOf } from "../../../src/http/body-limit.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { LineProtocolError } from "../../../src/influx/line-protocol.ts";
import { influxSamples } from "../../../src/influx/write-request.ts";
import { bufferRefusal } from "../../http/buffer-refusal.ts";
import { acceptedPushBody, type PushInputDeps } from "../input-deps.ts";

export type InfluxRoutesDeps = PushInputDeps;

const influxError = (e: ApiError) => new Response(JSON.stringify({ error: e.message, errorMsg: e.message }), { status: e.status, headers: { "Content-Type": "application/json", ...e.headers } });

export function influxRoutes(d: InfluxRoutesDeps): Hono {
  const app = new Hono({ strict: false });
  const now = d.now ?? Date.now;
  const write = (v2: boolean) => async (c: import("hono").Context) => {
    const body = await acceptedPushBody(c, d, { name: "Influx", section: "agent.inputs.influx" });
    const samples = influxSamples({ body, contentEncoding: c.req.header("Content-Encoding"), precision: c.req.query("precision"), v2, maxBytes: bodyLimitOf(c), now: now() });
    try {
      await d.output.write(samples);
    } catch (e) {
      d.counters.dropped.inc(samples.length);
      throw bufferRefusal(e);
    }
    d.counters.samples.inc(samples.length);
    return c.body(null, 204);
  };
  app.post("/write", write(false));
  app.post("/api/v2/write", write(true));
  app.get("/ping", (c) => c.body(null, 204));
  app.onError((err, c) => {
    const api = err instanceof ApiError ? err : err instanceof LineProtocolError ? new ApiError(400, err.message) : undefined;
    if (!api) {
      d.log.error("influx write failed", { err: (err as Error)?.stack ?? String(err) });
      return influxError(new ApiError(500, `internal error: ${(err as Error)?.message ?? String(err)}`));
    }
    if (api.status < 500 && api.status !== 404) {
      d.counters.errors.inc();
      d.warn(c.req.header("User-Agent") ?? "influx", "refused an Influx write", { status: api.status, err: api.message.slice(0, 200) });
    }
    return influxError(api);
  });
  return app;
}
