/** POST /api/v1/write: Prometheus remote write 1.0 (protobuf + snappy). */
import type { Hono } from "hono";
import { decodeRemoteWrite, RemoteWriteError } from "../../../src/prometheus/remote-write.ts";
import { bodyLimitOf, readBodyBytes } from "../../../src/http/body-limit.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { type ForeignSeries, writeForeignSeries } from "../../metrics/foreign-writes.ts";
import type { PrometheusDeps } from "./deps.ts";
import { badData } from "./respond.ts";
import { resolveTenant } from "./tenant.ts";

export function writeRoutes(app: Hono, deps: PrometheusDeps): void {
  app.post("/api/v1/write", async (c) => {
    const tenant = resolveTenant(c);
    const encoding = (c.req.header("Content-Encoding") ?? "snappy").toLowerCase();
    if (encoding !== "snappy") throw badData(`unsupported Content-Encoding ${encoding}; remote write bodies are snappy-compressed`);
    const type = (c.req.header("Content-Type") ?? "application/x-protobuf").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/x-protobuf") throw new ApiError(415, `unsupported Content-Type ${type}; remote write sends application/x-protobuf`);
    const proto = (c.req.header("Content-Type") ?? "").match(/proto=([^;\s]+)/)?.[1];
    if (proto && proto !== "prometheus.WriteRequest") throw new ApiError(415, `unsupported remote write message ${proto}; Outpost reads remote write 1.0 (prometheus.WriteRequest)`);
    let req: ReturnType<typeof decodeRemoteWrite>;
    try {
      req = decodeRemoteWrite(await readBodyBytes(c), bodyLimitOf(c));
    } catch (e) {
      if (e instanceof RemoteWriteError) throw badData(e.message);
      throw e;
    }
    const series: ForeignSeries[] = req.series.map((s) => {
      const { __name__: name, ...labels } = s.labels;
      return { name: name ?? "", labels, type: "gauge", points: s.samples.map((p) => (p.stale ? { timestamp: p.timestamp, value: p.value, stale: true } : { timestamp: p.timestamp, value: p.value })) };
    });
    await writeForeignSeries(deps, tenant, series, "remote-write");
    return c.body(null, 204);
  });
}
