/*
 * Names and shapes the console's page and the collector agree on (docs/console.md). No
 * imports: the page's bundle includes this file too.
 */

/** The session cookie set by a console login: HttpOnly, SameSite=Strict, Path=/, Secure over HTTPS. */
export const SESSION_COOKIE = "outpost_session";
/** Carries the session's CSRF token on every request that changes something. */
export const CSRF_HEADER = "X-Outpost-Csrf";
/** Sent by the page on every call: a 401 then carries no Basic challenge (no browser password dialog). */
export const CONSOLE_HEADER = "X-Outpost-Console";
/** Where the page finds the collector's interfaces, relative to itself ("./" at /, "../" at /console/). */
export const ROOT_META = "outpost-root";
/** The id of the JSON script element in which the page finds its session (collector/http/console/page.ts). */
export const SESSION_SCRIPT = "outpost-session";

/** Who the page is for: GET /console/api/session, the login's answer, and the page's embedded copy. */
export interface SessionInfo {
  authRequired: boolean;
  authenticated: boolean;
  user?: string;
  admin?: boolean;
  tenants?: string[];
  /** The header value every changing request of this session must carry. */
  csrf?: string;
  version: string;
  /** The collector's own metrics' tenant: in the picker, never opened first. */
  selfTenant?: string;
  /** How to start an agent against this collector (append --tenant T), when its broker listens. */
  agentCommand?: string;
}
