import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { authenticateChallenges, parseAuthorization } from "../../src/http/authorization.ts";
import { CONSOLE_HEADER, ON_SITE_COOKIE } from "../../src/http/console/names.ts";
import type { ConsoleSessions } from "../../src/http/console/sessions.ts";
import { type OnSitePrincipal, onSiteSessionMayDo } from "./on-site/read-scope.ts";

const REALM = "outpost-agent";
const digest = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest();

/** Whether a presented token is the api token: compared in constant time, as digests so that the length does not show either. */
export function tokenMatcher(token: string): (presented: string) => boolean {
  const expected = digest(token);
  return (presented) => timingSafeEqual(digest(presented), expected);
}

function unauthorized(c: Context, why: string): Response {
  // The on-site page handles a 401 itself: a Basic challenge would make the browser ask too.
  const challenge = c.req.header(CONSOLE_HEADER) === undefined ? authenticateChallenges(REALM) : `Bearer realm="${REALM}"`;
  return c.json({ errorMsg: why }, 401, { "WWW-Authenticate": challenge });
}

/**
 * The local API's optional token (--api-token): `Authorization: Bearer TOKEN`, or HTTP Basic
 * with the token as password (what Hawkular clients configured with a password send). Without
 * the header, the on-site view's session cookie (on-site/on-site-app.ts) admits reads only.
 */
export function requireApiToken(token: string, sessions?: ConsoleSessions<OnSitePrincipal>): MiddlewareHandler {
  const matches = tokenMatcher(token);
  return async (c, next) => {
    const header = c.req.header("Authorization");
    const cookie = header === undefined && sessions ? getCookie(c, ON_SITE_COOKIE) : undefined;
    if (cookie !== undefined) {
      if (!sessions!.find(cookie)) return unauthorized(c, "the on-site session has ended (logged out, unused for 12 hours, or the agent restarted): log in again");
      if (!onSiteSessionMayDo(c.req.method, c.req.path)) {
        return c.json({ errorMsg: "the on-site console reads only: anything else needs the api token (Authorization: Bearer TOKEN)" }, 403);
      }
      return next();
    }
    const p = parseAuthorization(header);
    const presented = p === undefined || typeof p === "string" ? undefined : p.scheme === "bearer" ? p.token : p.password;
    if (presented === undefined || !matches(presented)) {
      return unauthorized(c, presented === undefined ? "this agent requires its api token (Authorization: Bearer TOKEN)" : "wrong api token");
    }
    await next();
  };
}
