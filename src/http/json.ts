import type { Context } from "hono";

/**
 * Removes null/undefined values, empty arrays, empty objects and NaN from a JSON value,
 * recursively: the wire convention is that null or empty properties are omitted.
 * Array elements are kept (an array of objects keeps its positions).
 */
export function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compact);
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (isEmptyish(v)) continue;
      const c = compact(v);
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

export function jsonResponse(c: Context, status: number, value: unknown, opts: JsonOptions = {}): Response {
  const body = JSON.stringify(opts.raw ? value : compact(value));
  return c.body(body, status as 200, { "Content-Type": "application/json", ...opts.headers });
}

/** An empty successful response (200 with no body), as upstream answers writes. */
export function emptyOk(c: Context): Response {
  return c.body(null, 200);
}
