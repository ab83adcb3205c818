import type { Context, MiddlewareHandler } from "hono";

/**
 * Cross-origin access for browsers (CORS), as Hawkular's filter did it: a request with an
 * `Origin` that is not allowed is answered 400 before it reaches any route; an allowed one gets
 * the CORS headers, and a preflight (`OPTIONS`) is answered 200 at once. Same-origin requests
 * (the Origin names the host the request was sent to) are not cross-origin and pass untouched.
 * Only a listed origin is echoed with credentials allowed; `*` is answered `*` without them, so
 * a browser never lets an unlisted site read what its credentials or cookies would fetch.
 */
export interface CorsOptions {
  /**
   * Allowed origins, `scheme://host[:port]`; a listed host also admits its subdomains
   * (`http://example.org` admits `http://grafana.example.org`). `*` admits every origin; an
   * empty list admits none.
   */
  origins: readonly string[];
  /** Request headers allowed beyond the default ones (Access-Control-Allow-Headers). */
  allowHeaders?: readonly string[];
}

const ALLOW_METHODS = "GET, POST, PUT, PATCH, DELETE, OPTIONS, HEAD";
/** Hawkular's defaults, plus the headers Outpost's clients send (its tenant header, credentials). */
const DEFAULT_ALLOW_HEADERS = ["origin", "accept", "content-type", "hawkular-tenant", "svc-tenant", "authorization", "hawkular-admin-token"];
const EXPOSE_HEADERS = "Location, Link, X-Total-Count";
const MAX_AGE_S = String(72 * 3600);

interface ParsedOrigin {
  scheme: string;
  host: string;
  port: string;
}

function parseOrigin(text: string): ParsedOrigin | undefined {
  try {
    const u = new URL(text);
    if (u.host === "" || (u.protocol !== "http:" && u.protocol !== "https:")) return undefined;
    return { scheme: u.protocol, host: u.hostname.toLowerCase(), port: u.port };
  } catch {
    return undefined;
  }
}

/** Whether `origin` is admitted by the configured list. */
export function compileOriginPredicate(origins: readonly string[]): (origin: string) => boolean {
  if (origins.some((o) => o.trim() === "*")) return () => true;
  const allowed = origins.map((o) => parseOrigin(o.trim())).filter((o): o is ParsedOrigin => o !== undefined);
  return (origin) => {
    const o = parseOrigin(origin);
    if (!o) return false;
    return allowed.some((a) => a.scheme === o.scheme && a.port === o.port && (o.host === a.host || o.host.endsWith(`.${a.host}`)));
  };
}

/** Whether the origin names the host this request was sent to (not a cross-origin request). */
function sameOrigin(c: Context, origin: string): boolean {
  const host = c.req.header("Host");
  if (!host) return false;
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

export function corsMiddleware(opts: CorsOptions): MiddlewareHandler {
  const admitted = compileOriginPredicate(opts.origins);
  const anyOrigin = opts.origins.some((o) => o.trim() === "*");
  const allowHeaders = [...DEFAULT_ALLOW_HEADERS, ...(opts.allowHeaders ?? []).map((h) => h.trim()).filter((h) => h !== "")].join(",");
  const headers = (origin: string): Record<string, string> => ({
    ...(anyOrigin ? { "Access-Control-Allow-Origin": "*" } : { "Access-Control-Allow-Origin": origin, "Access-Control-Allow-Credentials": "true" }),
    "Access-Control-Allow-Methods": ALLOW_METHODS,
    "Access-Control-Allow-Headers": allowHeaders,
    "Access-Control-Expose-Headers": EXPOSE_HEADERS,
    "Access-Control-Max-Age": MAX_AGE_S,
    Vary: "Origin",
  });
  return async (c, next) => {
    const origin = c.req.header("Origin");
    if (origin === undefined || sameOrigin(c, origin)) return next();
    if (!admitted(origin)) {
      // Refused before any route, as upstream did; but without CORS headers: a page of a foreign
      // origin must learn nothing from this server, not even its error text.
      return c.json({ errorMsg: `Origin ${origin} is not allowed` }, 400);
    }
    if (c.req.method === "OPTIONS") return c.body(null, 200, headers(origin));
    await next();
    for (const [k, v] of Object.entries(headers(origin))) c.res.headers.set(k, v);
  };
}
