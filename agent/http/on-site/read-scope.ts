import { ON_SITE_STATUS_API } from "../../../src/http/console/names.ts";
import { ConsoleSessions } from "../../../src/http/console/sessions.ts";

/** Who logged in to the on-site view: someone who presented the agent's api token, from where. */
export interface OnSitePrincipal {
  address: string;
}

/** Sessions of the on-site view: ended by logout, 12 hours unused, 7 days, or the agent's restart; a few at once. */
export function onSiteSessions(now?: () => number): ConsoleSessions<OnSitePrincipal> {
  return new ConsoleSessions<OnSitePrincipal>({ idleMs: 12 * 3_600_000, maxMs: 7 * 86_400_000, maxSessions: 64 }, now);
}

/** The read paths of the local API: the metrics reads, the Prometheus query API, /metrics and the on-site status. */
const READ_PATHS = [/^\/(svc|hawkular)\/metrics(\/|$)/, /^\/prometheus\/[^/]+\/api\/v1\//, /^\/api\/v1\//, /^\/metrics$/];

/**
 * What an on-site session may do: read (GET and HEAD of the read paths), nothing else. Writes,
 * the inputs' routes and anything added later need the api token itself, so a session cookie
 * (which the browser sends by itself) can never be made to write (docs/security.md, "The
 * agent's on-site view").
 */
export function onSiteSessionMayDo(method: string, path: string): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  return path === ON_SITE_STATUS_API || READ_PATHS.some((re) => re.test(path));
}
