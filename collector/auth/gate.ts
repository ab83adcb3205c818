import { createLogThrottle } from "../../src/log/throttle.ts";
import type { Logger } from "../../src/log/logger.ts";
import { type Credentials, type Principal, principalKey } from "./credentials.ts";
import { ConsoleSessions } from "../../src/http/console/sessions.ts";
import type { FailureThrottle } from "./throttle.ts";

/** Who may log in to the console: a person of the auth file. */
export type UserPrincipal = Extract<Principal, { kind: "user" }>;

export type GateResult = { ok: true; principal: Principal } | { ok: false; throttledMs?: number; throttledBy?: "address" | "user" | "overall" };

/** The errorMsg and Retry-After of a refused attempt (HTTP 429). */
export function throttledAnswer(r: { throttledMs: number; throttledBy?: "address" | "user" | "overall" }, address: string, noun: string): { errorMsg: string; retryAfter: string } {
  const seconds = Math.ceil(r.throttledMs / 1000);
  const whose = r.throttledBy === "user" ? "for this user name" : r.throttledBy === "overall" ? "on this collector" : `from ${address}`;
  return { errorMsg: `Too many failed ${noun} ${whose}; retry in ${seconds} s`, retryAfter: String(seconds) };
}

/**
 * Where HTTP and MQTT check presented credentials: the file's credentials, the failure
 * throttle (per address group, user name and overall; throttle.ts), and one log line per
 * address and minute about failures (a guessing run
 * must not flood the log; the count of suppressed lines comes with the next one).
 */
export class AuthGate {
  /** Undefined: no slow-down (--auth-failures 0). */
  readonly throttle: FailureThrottle | undefined;
  private readonly logGate = createLogThrottle(60_000);
  /** Called on every failed or throttled attempt (the collector counts them in its own metrics). */
  onFailure: () => void = () => {};
  /** Per credential that logged in: aborted when a reload removes or changes it. */
  private readonly revocations = new Map<string, AbortController>();
  /** Web console logins (a session cookie instead of credentials on every request). */
  readonly sessions = new ConsoleSessions<UserPrincipal>();

  constructor(
    readonly credentials: Credentials,
    private readonly log: Logger,
    throttle?: FailureThrottle,
  ) {
    this.throttle = throttle;
  }

  async password(address: string, user: string, password: string, via: string): Promise<GateResult> {
    // A credential verified recently passes at once: no slot, no argon2id check.
    if (!this.throttle || this.credentials.rememberedPassword(user, password)) {
      const principal = await this.credentials.checkPassword(user, password);
      if (principal) return { ok: true, principal };
      return this.failed(address, via, `wrong password or unknown user '${user}'`);
    }
    // The slot is taken before the check, so attempts sent at once cannot all be checked.
    const admission = this.throttle.begin(address, user);
    if (!admission.ok) return this.refused(address, via, admission.waitMs, admission.why);
    const principal = await this.credentials.checkPassword(user, password);
    if (principal) {
      admission.attempt.succeeded();
      return { ok: true, principal };
    }
    admission.attempt.failed();
    return this.failed(address, via, `wrong password or unknown user '${user}'`, false);
  }

  token(address: string, token: string, via: string): GateResult {
    const principal = this.credentials.checkToken(token);
    if (principal) return { ok: true, principal };
    const wait = this.throttle?.addressWaitMs(address) ?? 0;
    if (wait > 0) return this.refused(address, via, wait, "address");
    return this.failed(address, via, "unknown bearer token");
  }

  /**
   * A signal aborted when this credential is removed or changed by a reload, so what it opened
   * (watch streams, websockets) closes with it.
   */
  revoked(p: Principal): AbortSignal {
    const key = principalKey(p);
    let c = this.revocations.get(key);
    if (!c) this.revocations.set(key, (c = new AbortController()));
    return c.signal;
  }

  /** Re-reads the credentials (SIGHUP); throws and keeps them when the file is bad. */
  reload(): void {
    for (const key of this.credentials.reload()) {
      this.revocations.get(key)?.abort();
      this.revocations.delete(key);
    }
  }

  private failed(address: string, via: string, why: string, count = true): GateResult {
    this.onFailure();
    if (count) this.throttle?.failed(address);
    this.note(address, via, why);
    return { ok: false };
  }

  private refused(address: string, via: string, waitMs: number, why: "address" | "user" | "overall"): GateResult {
    this.onFailure();
    const whose = why === "address" ? "from this address" : why === "user" ? "for this user name" : "on this collector";
    this.note(address, via, `too many failures ${whose}; refused for ${Math.ceil(waitMs / 1000)} s`);
    return { ok: false, throttledMs: waitMs, throttledBy: why };
  }

  private note(address: string, via: string, why: string): void {
    const { pass, suppressed } = this.logGate(address);
    if (pass) this.log.warn("authentication failed", { via, address, why, suppressedSinceLast: suppressed || undefined });
  }
}
