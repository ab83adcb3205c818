import { gzipSync } from "node:zlib";
import type { Context } from "hono";

/**
 * Removes null/undefined values, empty arrays, empty objects and NaN from a JSON value,
 * recursively: the wire convention is that null or empty properties are omitted.
 * Array elements are kept (an array of objects keeps its positions). The content of a property
 * named `value` is data, written as it is (an inventory data entity's structured value may hold
 * nulls, as the body reader keeps them); an empty `value` is still omitted.
 */
export function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compact);
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (isEmptyish(v)) continue;
      const c = k === "value" ? v : compact(v);
      if (isEmptyish(c)) continue;
      out[k] = c;
    }
    return out;
  }
  return value;
}

function isEmptyish(v: unknown): boolean {
  if (v === null || v === undefined) return true;
  if (typeof v === "number" && Number.isNaN(v)) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object" && !(v instanceof Date)) {
    for (const _ in v) return false;
    return true;
  }
  return false;
}

function isEmptyResult(v: unknown): boolean {
  return isEmptyish(v);
}

export interface JsonOptions {
  /** Skip `compact` when the value is already clean (hot paths with many points). */
  raw?: boolean;
  headers?: Record<string, string>;
}

/** 200 with the JSON body, or 204 with no body when the result is null, [] or {}. */
export function jsonOr204(c: Context, value: unknown, opts: JsonOptions = {}): Response {
  if (isEmptyResult(value)) return c.body(null, 204, opts.headers);
  return jsonResponse(c, 200, value, opts);
}

/**
 * Whether the request accepts a gzip-encoded response (`Accept-Encoding: gzip`, or `*`, with
 * a non-zero quality).
 */
export function acceptsGzip(c: Context): boolean {
  const header = c.req.header("Accept-Encoding");
  if (!header) return false;
  for (const part of header.split(",")) {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/**
 * A JSON response; gzip-compressed whenever the client accepts it, as Hawkular Metrics (0.2x)
 * answered. Level 1: about 5× smaller for series JSON, at ~1.7 ms per 400 KB (10,000 points)
 * on the development VM, where level 6 costs ~8 ms for 35 % less.
 */
export function jsonResponse(c: Context, status: number, value: unknown, opts: JsonOptions = {}): Response {
  const body = JSON.stringify(opts.raw ? value : compact(value));
  const headers: Record<string, string> = { "Content-Type": "application/json", ...opts.headers };
  if (acceptsGzip(c)) {
    return c.body(gzipSync(body, { level: 1 }), status as 200, { ...headers, "Content-Encoding": "gzip", Vary: "Accept-Encoding" });
  }
  return c.body(body, status as 200, headers);
}

/** An empty successful response (200 with no body), as upstream answers writes. */
export function emptyOk(c: Context): Response {
  return c.body(null, 200);
}
