/** Request parameters as Prometheus reads them: URL query and form body alike. */
import type { Context } from "hono";
import { readBodyText } from "../body-limit.ts";
import { LiteralError, parseDuration } from "../../promql/literals.ts";
import { badData } from "./respond.ts";

export interface Params {
  get(name: string): string | undefined;
  getAll(name: string): string[];
}

/** The query string merged with an application/x-www-form-urlencoded body (POST). */
export async function readParams(c: Context): Promise<Params> {
  const all = new URLSearchParams(new URL(c.req.url).search);
  if (c.req.method === "POST") {
    const type = (c.req.header("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "application/x-www-form-urlencoded") {
      for (const [k, v] of new URLSearchParams(await readBodyText(c))) all.append(k, v);
    } else if (type !== "") throw badData(`unsupported Content-Type ${type}; send application/x-www-form-urlencoded`);
  }
  return {
    get: (n) => all.get(n) ?? undefined,
    getAll: (n) => all.getAll(n),
  };
}

/** Prometheus' min/max time, what an absent start/end means on the metadata endpoints. */
export const MIN_TIME = -9_223_372_036_854;
export const MAX_TIME = 9_223_372_036_854;

/** Unix seconds (with a fraction) or RFC 3339, in ms. */
export function parseTime(name: string, value: string | undefined, fallback?: number): number {
  if ((value === undefined || value === "") && fallback !== undefined) return fallback;
  const s = value ?? "";
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s.trim())) {
    const t = Number(s);
    const sec = Math.trunc(t);
    return sec * 1000 + Math.round((t - sec) * 1000);
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(s)) {
    const t = Date.parse(s);
    if (!Number.isNaN(t)) return t;
  }
  if (s === "0001-01-01T00:00:00Z" || s === "-292273086-05-16T16:47:06Z") return MIN_TIME;
  if (s === "292277025-08-17T07:12:55.807Z") return MAX_TIME;
  throw badData(`invalid parameter "${name}": cannot parse ${JSON.stringify(s)} to a valid timestamp`);
}

/** Seconds (with a fraction) or a Prometheus duration, in ms. */
export function parseDurationParam(name: string, value: string | undefined): number {
  const s = value ?? "";
  if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s.trim())) return Math.round(Number(s) * 1000);
  try {
    if (/^(\d+(ms|s|m|h|d|w|y))+$/.test(s)) return parseDuration(s);
  } catch (e) {
    if (!(e instanceof LiteralError)) throw e;
  }
  throw badData(`invalid parameter "${name}": cannot parse ${JSON.stringify(s)} to a valid duration`);
}

/** A non-negative integer `limit` (0 or absent: none). */
export function parseLimit(value: string | undefined): number {
  if (value === undefined || value === "") return 0;
  if (!/^\d+$/.test(value)) throw badData(`invalid parameter "limit": cannot parse ${JSON.stringify(value)} to a valid limit`);
  return Number(value);
}
