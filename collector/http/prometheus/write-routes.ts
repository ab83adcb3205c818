/** POST /api/v1/write: Prometheus remote write 1.0 (protobuf + snappy). */
import type { Hono } from "hono";
import { bodyLimitOf, readBodyBytes, releaseBody } from "../../../src/http/body-limit.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { badData } from "../../../src/http/prometheus/respond.ts";
import { resolveTenant } from "../../../src/http/prometheus/tenant.ts";
import { decodeWriteRequest, RemoteWriteError, uncompressRemoteWrite, type WriteRequest } from "../../../src/prometheus/remote-write.ts";
import { decodeWriteColumns } from "../../../src/prometheus/remote-write-columns.ts";
import { SnappyScratch } from "../../../src/prometheus/snappy.ts";
import { type ForeignSeries, RemoteWriteColumns, writeForeignSeries, writeRemoteColumns } from "../../metrics/foreign-writes.ts";
import type { PrometheusDeps } from "./deps.ts";

export function writeRoutes(app: Hono, deps: PrometheusDeps): void {
  const fast = deps.remoteWrite ?? new RemoteWriteColumns();
  // Decompressed bodies go into one reused buffer: each is decoded before the next request's turn.
  const scratch = new SnappyScratch();
  app.post("/api/v1/write", async (c) => {
    const tenant = resolveTenant(c);
    const encoding = (c.req.header("Content-Encoding") ?? "snappy").toLowerCase();
    if (encoding !== "snappy") throw badData(`unsupported Content-Encoding ${encoding}; remote write bodies are snappy-compressed`);
    const type = (c.req.header("Content-Type") ?? "application/x-protobuf").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/x-protobuf") throw new ApiError(415, `unsupported Content-Type ${type}; remote write sends application/x-protobuf`);
    const proto = (c.req.header("Content-Type") ?? "").match(/proto=([^;\s]+)/)?.[1];
    if (proto && proto !== "prometheus.WriteRequest") throw new ApiError(415, `unsupported remote write message ${proto}; Outpost reads remote write 1.0 (prometheus.WriteRequest)`);
    const body = await readBodyBytes(c);
    let raw: Uint8Array;
    try {
      raw = uncompressRemoteWrite(body, bodyLimitOf(c), scratch);
    } catch (e) {
      if (e instanceof RemoteWriteError) throw badData(e.message);
      throw e;
    } finally {
      releaseBody(body);
    }
    // Series seen before, samples into reused columns; anything else as before (remote-write-columns.ts).
    const cols = fast.take();
    try {
      if (decodeWriteColumns(raw, fast.cache, fast.map, fast.validTimestamp, cols)) {
        if (!scratch.owns(raw)) releaseBody(raw);
        await writeRemoteColumns(deps, tenant, cols, "remote-write");
        return c.body(null, 204);
      }
    } finally {
      fast.give(cols);
    }
    let req: WriteRequest;
    try {
      req = decodeWriteRequest(raw);
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
