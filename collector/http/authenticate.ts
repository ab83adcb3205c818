import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { type Access, OPEN_ACCESS } from "../../src/http/access.ts";
import { authenticateChallenges, parseAuthorization } from "../../src/http/authorization.ts";
import { clientAddress } from "../../src/http/peer.ts";
import type { ServiceEnv } from "../../src/http/service.ts";
import { type AuthGate, throttledAnswer } from "../auth/gate.ts";
import { ConsoleSessions } from "../../src/http/console/sessions.ts";
import { isConsoleOpenPath } from "../../src/http/console/paths.ts";
import { CONSOLE_HEADER, CSRF_HEADER, SESSION_COOKIE } from "../../src/http/console/names.ts";
import { isAgentDownload } from "./fleet/paths.ts";

export const REALM = "outpost";

/**
 * Paths any client may reach even with an auth file: liveness and the interfaces' status
 * (clients and load balancers probe them before they log in). Nothing in them is a tenant's.
 */
export function isOpenPath(path: string, method: string): boolean {
  // The console's page, its assets and its login: nothing of a tenant's in them.
  if (isConsoleOpenPath(path, method)) return true;
  if (method !== "GET" && method !== "HEAD") return false;
  // InfluxDB's /ping needs no credentials there either; its clients probe it first.
  return path === "/health" || path === "/ready" || /^\/(svc|hawkular)\/[a-z]+\/status\/?$/.test(path) || /^(\/influx\/[^/]+)?\/ping$/.test(path);
}

function unauthorized(c: Context, message: string): Response {
  // The console's page handles a 401 itself: a Basic challenge would make the browser ask too.
  const challenge = c.req.header(CONSOLE_HEADER) === undefined ? authenticateChallenges(REALM) : `Bearer realm="${REALM}"`;
  return c.json({ errorMsg: message }, 401, { "WWW-Authenticate": challenge });
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The access of a console session cookie, or a refusal. A request that changes something must
 * also carry the session's CSRF token in a header, which a page on another site cannot set.
 */
function sessionAccess(c: Context, gate: AuthGate, token: string): Access | Response {
  const s = gate.sessions.find(token);
  if (!s) return unauthorized(c, "The console session has ended (logged out, expired, or the collector restarted); log in again");
  if (!SAFE_METHODS.has(c.req.method) && !ConsoleSessions.csrfMatches(s, c.req.header(CSRF_HEADER))) {
    return c.json({ errorMsg: `A request authenticated by the console's session cookie that changes something needs the ${CSRF_HEADER} header of its session` }, 403);
  }
  const p = s.principal;
  return { name: p.name, admin: p.admin, tenants: p.tenants, revoked: s.revoked };
}

/**
 * Authentication of every HTTP request. Without a gate (no --auth-file) every request gets
 * OPEN_ACCESS. With one, every path but the open ones needs HTTP Basic, a bearer token or a
 * console session cookie (checked in that order; the first one present decides):
 * none or wrong → 401 with WWW-Authenticate, an address that failed too often → 429 with
 * Retry-After, an agent's MQTT credential → 403 (but for the download of a release binary). The access it sets is what
 * authorizeTenant (src/http/access.ts) checks tenants against.
 */
export function authenticate(gate: AuthGate | undefined, trustedProxy?: (address: string) => boolean): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    if (!gate) {
      c.set("access", OPEN_ACCESS);
      return next();
    }
    if (isOpenPath(c.req.path, c.req.method)) return next();
    const header = c.req.header("Authorization");
    const cookie = header === undefined ? getCookie(c, SESSION_COOKIE) : undefined;
    if (cookie !== undefined) {
      const access = sessionAccess(c, gate, cookie);
      if (access instanceof Response) return access;
      c.set("access", access);
      return next();
    }
    const presented = parseAuthorization(header);
    if (presented === undefined) return unauthorized(c, "Authentication required: send HTTP Basic credentials or an 'Authorization: Bearer' token");
    if (typeof presented === "string") return unauthorized(c, `Authentication failed: ${presented}`);
    // Behind a trusted proxy, the client it forwards for: the proxy itself must not be throttled for everyone.
    const address = clientAddress(c, trustedProxy) ?? "unknown";
    const via = `http ${c.req.method} ${c.req.path}`;
    const result = presented.scheme === "basic" ? await gate.password(address, presented.user, presented.password, via) : gate.token(address, presented.token, via);
    if (!result.ok) {
      if (result.throttledMs !== undefined) {
        const a = throttledAnswer({ throttledMs: result.throttledMs, throttledBy: result.throttledBy }, address, "authentications");
        return c.json({ errorMsg: a.errorMsg }, 429, { "Retry-After": a.retryAfter });
      }
      return unauthorized(c, presented.scheme === "basic" ? "Authentication failed: wrong user name or password" : "Authentication failed: unknown or revoked token");
    }
    const p = result.principal;
    // An agent downloads its upgrade with its own credential, and reaches nothing else (docs/fleet.md).
    if (p.kind === "agent" && isAgentDownload(c.req.path, c.req.method)) {
      c.set("access", { name: p.name, admin: false, tenants: new Set(), revoked: gate.revoked(p) });
      return next();
    }
    if (p.kind === "agent" || p.kind === "collector") {
      return c.json({ errorMsg: `Credential '${p.name}' is an MQTT credential (${p.kind}); HTTP needs a user or token credential` }, 403);
    }
    c.set("access", { name: p.name, admin: p.admin, tenants: p.tenants, revoked: gate.revoked(p) });
    return next();
  };
}
