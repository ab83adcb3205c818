import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * A person logged in to a web console: the collector's (docs/console.md, "Logging in"; the
 * principal is a user of its auth file) or an agent's on-site view (docs/console.md, "On site";
 * the principal says the agent's api token was presented).
 */
export interface ConsoleSession<P = unknown> {
  principal: P;
  /** Sent back by the page in a header on every request that changes something. */
  csrf: string;
  created: number;
  lastSeen: number;
  /** Aborted when a reload removes or changes the credential: the session ends with it. */
  revoked: AbortSignal;
}

export interface SessionLimits {
  /** A session unused this long ends. */
  idleMs: number;
  /** A session ends this long after the login, used or not. */
  maxMs: number;
  /** At most this many sessions at once; the least recently used one goes first. */
  maxSessions: number;
}

export const SESSION_LIMITS: SessionLimits = { idleMs: 12 * 3_600_000, maxMs: 7 * 86_400_000, maxSessions: 10_000 };

const digest = (token: string) => createHash("sha256").update(token).digest("base64url");

/**
 * A console's sessions, in this process's memory: a random 256-bit token per login, kept
 * only as its SHA-256 (so nothing in memory is usable as a cookie), ended by logout, idleness,
 * age, a restart, or a reload that removes or changes the credential.
 */
export class ConsoleSessions<P = unknown> {
  /** digest(token) → session, least recently used first (Map order). */
  private readonly sessions = new Map<string, ConsoleSession<P>>();

  constructor(
    private readonly limits: SessionLimits = SESSION_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  get count(): number {
    return this.sessions.size;
  }

  /** Opens a session; returns the token for the cookie and the session. */
  open(principal: P, revoked: AbortSignal): { token: string; session: ConsoleSession<P> } {
    while (this.sessions.size >= this.limits.maxSessions) this.sessions.delete(this.sessions.keys().next().value!);
    const token = randomBytes(32).toString("base64url");
    const t = this.now();
    const session: ConsoleSession<P> = { principal, csrf: randomBytes(24).toString("base64url"), created: t, lastSeen: t, revoked };
    this.sessions.set(digest(token), session);
    return { token, session };
  }

  /** The live session of a token, marked used; undefined (and forgotten) when it ended. */
  find(token: string): ConsoleSession<P> | undefined {
    const key = digest(token);
    const s = this.sessions.get(key);
    if (!s) return undefined;
    const t = this.now();
    if (s.revoked.aborted || t - s.lastSeen > this.limits.idleMs || t - s.created > this.limits.maxMs) {
      this.sessions.delete(key);
      return undefined;
    }
    s.lastSeen = t;
    // Re-inserted at the end: the map stays ordered by last use.
    this.sessions.delete(key);
    this.sessions.set(key, s);
    return s;
  }

  /** Ends the session of a token (logout); false when there was none. */
  close(token: string): boolean {
    return this.sessions.delete(digest(token));
  }

  /** Whether a request's CSRF header is the session's, compared in constant time. */
  static csrfMatches(s: ConsoleSession<unknown>, presented: string | undefined): boolean {
    if (presented === undefined) return false;
    const a = Buffer.from(presented);
    const b = Buffer.from(s.csrf);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
