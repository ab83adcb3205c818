import { isIP } from "node:net";
import { hostname } from "node:os";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "../log/logger.ts";
import { createLogThrottle } from "../log/throttle.ts";

/**
 * Which `Host` headers a server answers (docs/security.md, "DNS rebinding"). A page of any site
 * can make the browser beside a server resolve the site's own name to 127.0.0.1 and then read
 * and write the server "same-origin": the browser sends that name in `Host`. So only names the
 * server is known by are answered: IP literals (a rebinding needs a name), `localhost` and
 * `*.localhost` (browsers resolve them locally), the machine's own host name, and `extra`:
 * `--allowed-hosts` entries (a name, or `*.example.com` for its subdomains; `*` turns the check
 * off) and the host of `--external-url`.
 */
export function allowedHostPredicate(extra: readonly string[]): (hostHeader: string) => boolean {
  const entries = extra.map((e) => e.trim().toLowerCase()).filter((e) => e !== "");
  if (entries.includes("*")) return () => true;
  const own = hostname().toLowerCase();
  const exact = new Set([own, own.split(".")[0]!, ...entries.filter((e) => !e.startsWith("*."))]);
  const suffixes = entries.filter((e) => e.startsWith("*.")).map((e) => e.slice(1));
  return (hostHeader) => {
    const name = hostOf(hostHeader);
    if (name === undefined) return false;
    if (isIP(name) !== 0) return true;
    if (name === "localhost" || name.endsWith(".localhost")) return true;
    return exact.has(name) || suffixes.some((s) => name.endsWith(s));
  };
}

/** The host name of a Host header, lower case, without port, brackets or a final dot. */
function hostOf(header: string): string | undefined {
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end < 0 ? undefined : h.slice(1, end);
  }
  const colon = h.indexOf(":");
  const name = (colon < 0 ? h : h.slice(0, colon)).replace(/\.$/, "");
  return name === "" ? undefined : name;
}

/** Answers 403 to a request whose Host is not allowed; one log line per host and minute. */
export function hostCheck(allowed: (host: string) => boolean, option: string, log?: Logger): MiddlewareHandler {
  const throttle = createLogThrottle(60_000);
  return async (c, next) => {
    const host = c.req.header("Host");
    if (host === undefined || allowed(host)) return next();
    const { pass, suppressed } = throttle(host);
    if (pass) log?.warn(`refused a request for a host name this server does not know (DNS rebinding?); add it to ${option} if it is one of its names`, { host, path: c.req.path, suppressedSinceLast: suppressed || undefined });
    return c.json({ errorMsg: `Host '${host}' is not a name this server answers to (${option})` }, 403);
  };
}
