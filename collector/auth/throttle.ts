/**
 * Slows down guessing: after `free` failed authentications from one address within `windowMs`,
 * that address is refused (HTTP 429 with Retry-After, MQTT "server unavailable") for a pause that
 * doubles with every further failure, from `firstPauseMs` up to `maxPauseMs`. Credentials that
 * were verified recently still pass (collector/auth/credentials.ts remembers them), so a good
 * client behind the same address as a guesser keeps working. A refusal costs no argon2id check.
 */
export interface ThrottleOptions {
  free: number;
  windowMs: number;
  firstPauseMs: number;
  maxPauseMs: number;
  /** Addresses tracked at most; beyond it the oldest entry is forgotten. */
  maxAddresses: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { free: 5, windowMs: 60_000, firstPauseMs: 1_000, maxPauseMs: 60_000, maxAddresses: 10_000 };

interface Entry {
  failures: number;
  /** Start of the window the failures count in. */
  since: number;
  blockedUntil: number;
}

export class FailureThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly o: ThrottleOptions = DEFAULT_THROTTLE,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds the address must still wait; 0 when it may try. */
  waitMs(address: string): number {
    const e = this.entries.get(address);
    return e ? Math.max(0, e.blockedUntil - this.now()) : 0;
  }

  failed(address: string): void {
    const now = this.now();
    let e = this.entries.get(address);
    if (!e || (now - e.since > this.o.windowMs && e.blockedUntil <= now)) {
      e = { failures: 0, since: now, blockedUntil: 0 };
      if (this.entries.size >= this.o.maxAddresses) this.entries.delete(this.entries.keys().next().value!);
    }
    // Re-inserting keeps the map ordered by last failure, oldest first.
    this.entries.delete(address);
    this.entries.set(address, e);
    e.failures++;
    const over = e.failures - this.o.free;
    if (over > 0) e.blockedUntil = now + Math.min(this.o.maxPauseMs, this.o.firstPauseMs * 2 ** Math.min(over - 1, 20));
  }

  /** Addresses currently refused (for the collector's own metrics). */
  blockedCount(): number {
    const now = this.now();
    let n = 0;
    for (const e of this.entries.values()) if (e.blockedUntil > now) n++;
    return n;
  }
}
