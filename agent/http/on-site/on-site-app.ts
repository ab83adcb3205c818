import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { readJson } from "../../../src/http/body.ts";
import { CONSOLE_HEADER, ON_SITE_COOKIE, type OnSiteIdentity, type OnSiteStatus, type SessionInfo } from "../../../src/http/console/names.ts";
import { consolePage, PAGE_HEADERS } from "../../../src/http/console/page.ts";
import { assetResponse, bundleForRequests } from "../../../src/http/console/serve-bundle.ts";
import type { ConsoleSessions } from "../../../src/http/console/sessions.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { peerAddress } from "../../../src/http/peer.ts";
import { createLogThrottle } from "../../../src/log/throttle.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { onSiteBundle } from "./assets.ts";
import type { OnSitePrincipal } from "./read-scope.ts";

export interface OnSiteOptions {
  tenant: string;
  feed: string;
  /** The local window, ms. */
  windowMs: number;
  version: string;
  /** The agent's link and buffer as they are now. */
  status(): OnSiteStatus;
  /** With an api token: its check and the sessions a login opens. Absent: no token, no login (loopback only). */
  login?: { matches: (presented: string) => boolean; sessions: ConsoleSessions<OnSitePrincipal> };
  log: Logger;
}

/** The on-site view's request handlers; the agent's app routes to them (server-app.ts). */
export interface OnSiteHandlers {
  page(c: Context): Promise<Response>;
  asset(c: Context): Promise<Response>;
  session(c: Context): Response;
  login(c: Context): Promise<Response>;
  logout(c: Context): Response;
  status(c: Context): Response;
}

const NO_STORE = { "Cache-Control": "no-store" };

/**
 * The agent's on-site view (docs/console.md, "On site"): the console's metrics page, served
 * by the agent itself so that a technician next to the device reads its local window while the
 * collector is out of reach, read-only, with the agent's api token. Its page, assets and
 * session API are open (nothing of the agent's data is in them); a login with the api token
 * sets a session cookie that admits reads only (token-check.ts). Loaded at the page's first
 * request: an agent nobody opens it on never loads it nor the page's files.
 */
export function createOnSiteHandlers(o: OnSiteOptions): OnSiteHandlers {
  const bundle = bundleForRequests(onSiteBundle, o.log);
  const refusals = createLogThrottle(60_000);
  const loggedIn = (c: Context) => {
    if (!o.login) return true;
    const token = getCookie(c, ON_SITE_COOKIE);
    return token !== undefined && o.login.sessions.find(token) !== undefined;
  };
  const info = (authenticated: boolean): SessionInfo => {
    const onSite: OnSiteIdentity = { feed: o.feed, windowMs: o.windowMs, ...(authenticated ? { tenant: o.tenant } : {}) };
    return { authRequired: o.login !== undefined, authenticated, version: o.version, onSite, ...(authenticated ? { tenants: [o.tenant] } : {}) };
  };
  // A custom header (and, for the login, a JSON body): a form or link of another site can send neither.
  const requireConsoleHeader = (c: Context, what: string) => {
    if (c.req.header(CONSOLE_HEADER) === undefined) throw new ApiError(400, `An on-site ${what} must carry the ${CONSOLE_HEADER} header`);
  };

  return {
    async page(c) {
      const url = new URL(c.req.url);
      // Without the slash the page's relative links would miss: send the browser to it.
      if (url.pathname === "/console") return c.body(null, 301, { Location: `console/${url.search}` });
      const b = await bundle(c);
      if (b instanceof Response) return b;
      const prefix = url.pathname === "/" ? "./" : "../";
      return c.html(consolePage(prefix, b.script, b.style, info(loggedIn(c))), 200, { ...PAGE_HEADERS, ...NO_STORE });
    },

    async asset(c) {
      const b = await bundle(c);
      if (b instanceof Response) return b;
      return assetResponse(c, b, c.req.param("name") ?? "");
    },

    session(c) {
      return c.json(info(loggedIn(c)), 200, NO_STORE);
    },

    async login(c) {
      const login = o.login;
      if (!login) throw new ApiError(400, "This agent has no api token: its on-site view needs no login");
      requireConsoleHeader(c, "login");
      if (!/^application\/json\b/i.test(c.req.header("Content-Type") ?? "")) throw new ApiError(415, "Send the login as application/json");
      const body = await readJson(c);
      const token = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>).token : undefined;
      if (typeof token !== "string" || token === "" || token.length > 4096) throw new ApiError(400, "The login needs the agent's api token: {\"token\": \"…\"}");
      const address = peerAddress(c) ?? "unknown";
      if (!login.matches(token)) {
        const r = refusals(address);
        if (r.pass) o.log.warn("on-site login refused: wrong api token", { address, ...(r.suppressed > 0 ? { suppressed: r.suppressed } : {}) });
        return c.json({ errorMsg: "Wrong api token" }, 401);
      }
      const { token: cookie } = login.sessions.open({ address }, new AbortController().signal);
      // HttpOnly: no script reads it; SameSite=Strict: no other site's page or link sends it.
      // The agent serves plain HTTP only, so never Secure (docs/security.md).
      setCookie(c, ON_SITE_COOKIE, cookie, { httpOnly: true, sameSite: "Strict", path: "/" });
      o.log.info("on-site login", { address });
      return c.json(info(true), 200, NO_STORE);
    },

    logout(c) {
      requireConsoleHeader(c, "logout");
      const token = getCookie(c, ON_SITE_COOKIE);
      if (token !== undefined) o.login?.sessions.close(token);
      deleteCookie(c, ON_SITE_COOKIE, { path: "/", httpOnly: true, sameSite: "Strict" });
      return c.body(null, 204);
    },

    status(c) {
      return c.json(o.status(), 200, NO_STORE);
    },
  };
}
