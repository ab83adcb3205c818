/**
 * An InfluxDB write request (`/write` of 1.x, `/api/v2/write` of 2.x) as series samples, the
 * same for the collector's Influx route and the agent's: the body inflated when gzip (held to
 * the body limit once inflated), the precision checked, each numeric or boolean field a gauge
 * `<measurement>_<field>` with the line's tags as labels (booleans as 1/0), each string field
 * a string metric of the same name (docs/prometheus.md).
 */
import { ApiError } from "../http/errors.ts";
import { GunzipError, gunzipLimited } from "../http/gunzip-limited.ts";
import { isPrecision, parseLineProtocol } from "./line-protocol.ts";

export interface InfluxSample {
  name: string;
  labels: Record<string, string>;
  value: number | string;
  timestamp: number;
}

export interface InfluxWrite {
  body: Uint8Array;
  contentEncoding?: string;
  /** The precision query parameter (ns when absent). */
  precision?: string;
  /** 2.x route: its error names the 2.x precisions. */
  v2: boolean;
  /** Largest body once inflated. */
  maxBytes: number;
  /** ms: stamps lines without a timestamp. */
  now: number;
}

/** Throws ApiError (400, 413) or LineProtocolError (400) naming the problem; nothing of a bad request is kept. */
export function influxSamples(w: InfluxWrite): InfluxSample[] {
  const precision = w.precision ?? "ns";
  if (!isPrecision(precision)) throw new ApiError(400, `invalid precision ${JSON.stringify(precision)}; use ${w.v2 ? "ns, us, ms or s" : "n, u, ms, s, m or h"}`);
  let bytes = w.body;
  if ((w.contentEncoding ?? "").toLowerCase() === "gzip") {
    // Inflated, the body is held to the same limit (a small gzip can inflate to gigabytes).
    try {
      bytes = gunzipLimited(bytes, w.maxBytes);
    } catch (e) {
      if (!(e instanceof GunzipError)) throw e;
      if (e.kind === "too-large") throw new ApiError(413, `gzip body decompresses to more than ${w.maxBytes} bytes (--max-request-body)`);
      throw new ApiError(400, "body is not valid gzip");
    }
  }
  const out: InfluxSample[] = [];
  for (const p of parseLineProtocol(new TextDecoder().decode(bytes), precision, w.now)) {
    for (const [field, value] of Object.entries(p.fields)) {
      out.push({ name: `${p.measurement}_${field}`, labels: p.tags, value: typeof value === "boolean" ? (value ? 1 : 0) : value, timestamp: p.timestamp });
    }
  }
  return out;
}
