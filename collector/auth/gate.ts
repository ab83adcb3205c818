import { createLogThrottle } from "../../src/log/throttle.ts";
import type { Logger } from "../../src/log/logger.ts";
import { type Credentials, type Principal, principalKey } from "./credentials.ts";
import { ConsoleSessions } from "./sessions.ts";
import type { FailureThrottle } from "./throttle.ts";

export type GateResult = { ok: true; principal: Principal } | { ok: false; throttledMs?: number };

/**
 * Where HTTP and MQTT check presented credentials: the file's credentials, the per-address
 * failure throttle, and one log line per address and minute about failures (a guessing run
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
  readonly sessions = new ConsoleSessions();

  constructor(
    readonly credentials: Credentials,
    private readonly log: Logger,
    throttle?: FailureThrottle,
  ) {
    this.throttle = throttle;
  }

  async password(address: string, user: string, password: string, via: string): Promise<GateResult> {
    const wait = this.throttle?.waitMs(address) ?? 0;
    // A throttled address gets no argon2id check, except for credentials verified recently.
    if (wait > 0 && !this.credentials.rememberedPassword(user, password)) return this.refused(address, via, wait);
    const principal = await this.credentials.checkPassword(user, password);
    if (principal) return { ok: true, principal };
    return this.failed(address, via, `wrong password or unknown user '${user}'`);
  }

  token(address: string, token: string, via: string): GateResult {
    const principal = this.credentials.checkToken(token);
    if (principal) return { ok: true, principal };
    const wait = this.throttle?.waitMs(address) ?? 0;
    if (wait > 0) return this.refused(address, via, wait);
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

  private failed(address: string, via: string, why: string): GateResult {
    this.onFailure();
    this.throttle?.failed(address);
    this.note(address, via, why);
    return { ok: false };
  }

  private refused(address: string, via: string, waitMs: number): GateResult {
    this.onFailure();
    this.note(address, via, `too many failures; refused for ${Math.ceil(waitMs / 1000)} s`);
    return { ok: false, throttledMs: waitMs };
  }

  private note(address: string, via: string, why: string): void {
    const { pass, suppressed } = this.logGate(address);
    if (pass) this.log.warn("authentication failed", { via, address, why, suppressedSinceLast: suppressed || undefined });
  }
}
