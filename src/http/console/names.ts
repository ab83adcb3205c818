/*
 * Names and shapes the console's page and the program serving it agree on: the collector, or
 * an agent serving its on-site view (docs/console.md). No imports: the page's bundle includes
 * this file too.
 */

/** The session cookie set by a console login: HttpOnly, SameSite=Strict, Path=/, Secure over HTTPS. */
export const SESSION_COOKIE = "outpost_session";
/** Carries the session's CSRF token on every request that changes something. */
export const CSRF_HEADER = "X-Outpost-Csrf";
/** Sent by the page on every call: a 401 then carries no Basic challenge (no browser password dialog). */
export const CONSOLE_HEADER = "X-Outpost-Console";
/** Where the page finds the collector's interfaces, relative to itself ("./" at /, "../" at /console/). */
export const ROOT_META = "outpost-root";
/** The id of the JSON script element in which the page finds its session (src/http/console/page.ts). */
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
  /** Present when an agent serves the page: its on-site view, read-only, of its own data. */
  onSite?: OnSiteIdentity;
}

/**
 * An agent's on-site session cookie. Its own name: a browser sends a host's cookies to every
 * port of it, so the collector's and an agent's on the same machine must not overwrite each other.
 */
export const ON_SITE_COOKIE = "outpost_on_site";
/** The on-site view's status: GET, behind the agent's api token (its session or the header). */
export const ON_SITE_STATUS_API = "/console/api/status";

/** Which agent serves the on-site page: its feed before login (the device's name, nothing of its data), its tenant too after. */
export interface OnSiteIdentity {
  tenant?: string;
  feed: string;
  /** The local window ([agent.history] window), ms: ranges longer than it show nothing more. */
  windowMs: number;
}

/** GET /console/api/status: the agent's link to the collector and what waits in its buffer. */
export interface OnSiteStatus {
  tenant: string;
  feed: string;
  /** The agent's clock when it answered (ms). */
  now: number;
  /** Connected to the broker and subscribed (the collector's acks can arrive). */
  connected: boolean;
  /** Since when the link is down (ms); the agent's start when it never came up. */
  downSince?: number;
  /** When the collector last acknowledged a batch (ms); absent since the agent started. */
  lastAckAt?: number;
  /** Points and counted bytes not yet acknowledged by the collector, and when the oldest was buffered. */
  backlog: { points: number; bytes: number; oldest?: number };
  /** The local window: its length (ms), and the acknowledged points and bytes it keeps. */
  history: { windowMs: number; points: number; bytes: number };
  /** Points the agent dropped since it started (buffer full, too old, refused by the collector). */
  dropped: number;
  /** The broker the agent sends to (scheme, host and port). */
  broker: string;
  version: string;
}
