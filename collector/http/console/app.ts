import { Hono } from "hono";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import * as z from "zod";
import { readJson } from "../../../src/http/body.ts";
import { ApiError } from "../../../src/http/errors.ts";
import { type BaseUrlPolicy, requestBase } from "../../../src/http/base-url.ts";
import { clientAddress } from "../../../src/http/peer.ts";
import { parseWith } from "../../../src/http/validate.ts";
import type { Logger } from "../../../src/log/logger.ts";
import { CONSOLE_HEADER, SESSION_COOKIE, type SessionInfo } from "../../../src/http/console/names.ts";
import { consolePage, PAGE_HEADERS } from "../../../src/http/console/page.ts";
import { ASSETS_PREFIX, SESSION_API } from "../../../src/http/console/paths.ts";
import { assetResponse, bundleForRequests } from "../../../src/http/console/serve-bundle.ts";
import type { ConsoleSession } from "../../../src/http/console/sessions.ts";
import { type AuthGate, throttledAnswer, type UserPrincipal } from "../../auth/gate.ts";
import { consoleBundle } from "./assets.ts";

export interface ConsoleDeps {
  /** Absent without --auth-file: no login, every tenant. */
  gate?: AuthGate;
  /** Every tenant the collector holds data of: the picker's list for an admin or without an auth file. */
  tenants(): Promise<string[]>;
  /** The tenant of the collector's own metrics: listed, but never the one the console opens on. */
  selfTenant?: string;
  /** The command that starts an agent against this collector's broker (without --tenant), once it listens. */
  agentCommand?: () => string | undefined;
  base?: BaseUrlPolicy;
  version: string;
  log: Logger;
}

const loginBody = z.object({ user: z.string().min(1, "is required").max(128), password: z.string().min(1, "is required").max(4096) }).strict();

/**
 * The web console (docs/console.md): its page at `/` and `/console/`, the bundled assets, and
 * the session API (log in, who am I, log out). Everything the page shows it reads through the
 * HTTP interfaces, authenticated by the session cookie set here.
 */
export function createConsoleApp(deps: ConsoleDeps): Hono {
  const app = new Hono({ strict: true });
  const { gate } = deps;

  const page = async (c: Context, prefix: string) => {
    const b = await bundle(c);
    if (b instanceof Response) return b;
    // The page holds the session (user, CSRF token): never stored by a cache.
    return c.html(consolePage(prefix, b.script, b.style, await info(currentSession(c))), 200, { ...PAGE_HEADERS, "Cache-Control": "no-store" });
  };
  const bundle = bundleForRequests(consoleBundle, deps.log);

  app.get("/", (c) => page(c, "./"));
  // The root app ignores trailing slashes when routing, so both reach here; the URL tells them apart.
  const consolePath = (c: Context) => {
    const url = new URL(c.req.url);
    // Without the slash the page's relative links would miss: send the browser to it.
    if (!url.pathname.endsWith("/")) return c.body(null, 301, { Location: `console/${url.search}` });
    return page(c, "../");
  };
  app.get("/console", consolePath);
  app.get("/console/", consolePath);

  app.get(`${ASSETS_PREFIX}:name`, async (c) => {
    const b = await bundle(c);
    if (b instanceof Response) return b;
    return assetResponse(c, b, c.req.param("name"));
  });

  const info = async (s: ConsoleSession<UserPrincipal> | undefined): Promise<SessionInfo> => {
    const about = { version: deps.version, selfTenant: deps.selfTenant, agentCommand: deps.agentCommand?.() };
    if (!gate) return { authRequired: false, authenticated: true, admin: true, tenants: await deps.tenants(), ...about };
    if (!s) return { authRequired: true, authenticated: false, version: deps.version };
    const p = s.principal;
    const tenants = p.admin ? await deps.tenants() : [...p.tenants].sort();
    return { authRequired: true, authenticated: true, user: p.name, admin: p.admin, tenants, csrf: s.csrf, ...about };
  };
  const currentSession = (c: Context) => {
    const token = getCookie(c, SESSION_COOKIE);
    return token === undefined ? undefined : gate?.sessions.find(token);
  };

  app.get(SESSION_API.session, async (c) => c.json(await info(currentSession(c)), 200, { "Cache-Control": "no-store" }));

  app.post(SESSION_API.login, async (c) => {
    if (!gate) throw new ApiError(400, "This collector has no --auth-file: the console needs no login");
    // A custom header and a JSON body: a form on another site can send neither without CORS, which is off.
    if (c.req.header(CONSOLE_HEADER) === undefined) throw new ApiError(400, `A console login must carry the ${CONSOLE_HEADER} header`);
    if (!/^application\/json\b/i.test(c.req.header("Content-Type") ?? "")) throw new ApiError(415, "Send the login as application/json");
    const { user, password } = parseWith(loginBody, await readJson(c), "login");
    const address = clientAddress(c, deps.base?.trustedProxy) ?? "unknown";
    const result = await gate.password(address, user, password, "console login");
    if (!result.ok) {
      if (result.throttledMs !== undefined) {
        const a = throttledAnswer({ throttledMs: result.throttledMs, throttledBy: result.throttledBy }, address, "logins");
        return c.json({ errorMsg: a.errorMsg }, 429, { "Retry-After": a.retryAfter });
      }
      return c.json({ errorMsg: "Wrong user name or password" }, 401);
    }
    const p = result.principal;
    if (p.kind !== "user") return c.json({ errorMsg: `'${p.name}' is an MQTT credential (${p.kind}); log in with a user's name and password` }, 403);
    const { token, session } = gate.sessions.open(p, gate.revoked(p));
    setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: "Strict", path: "/", secure: requestBase(c, deps.base ?? {}).startsWith("https:") });
    deps.log.info("console login", { user: p.name, address });
    return c.json(await info(session), 200, { "Cache-Control": "no-store" });
  });

  app.post(SESSION_API.logout, (c) => {
    if (c.req.header(CONSOLE_HEADER) === undefined) throw new ApiError(400, `A console logout must carry the ${CONSOLE_HEADER} header`);
    const token = getCookie(c, SESSION_COOKIE);
    const user = token === undefined ? undefined : gate?.sessions.find(token)?.principal.name;
    if (token !== undefined) gate?.sessions.close(token);
    deleteCookie(c, SESSION_COOKIE, { path: "/", httpOnly: true, sameSite: "Strict", secure: requestBase(c, deps.base ?? {}).startsWith("https:") });
    if (user) deps.log.info("console logout", { user });
    return c.body(null, 204);
  });

  return app;
}
