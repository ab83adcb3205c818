import { addressGroup } from "../../src/net/address-group.ts";

/**
 * Slows down password guessing (docs/security.md, "Slowing down guessing"). Every password
 * check that is not of a credential verified recently first takes a slot, before the argon2id
 * check runs: one of its address group's, one of its user name's and one of the whole
 * collector's, each a budget of failures per minute. A success gives the slots back; a failure
 * keeps them until they are a minute old. An attempt that finds a budget full is refused at
 * once, with the time until a slot frees, and costs no check. So attempts sent at once are
 * counted as they arrive, not after their checks finish, and rotating source addresses does
 * not help: all of loopback is one address group (src/net/address-group.ts), and the user name's
 * and the overall budgets hold whatever the address.
 *
 * A full user-name budget refuses only address groups that failed for that name within the
 * minute: a client elsewhere still gets checked, from a small budget of its own (`perUserElsewhere`),
 * so someone guessing a user's password cannot lock that user out from their own address.
 */
export interface ThrottleOptions {
  /** Failures per window of one address group (--auth-failures). */
  perAddress: number;
  /** Failures per window of one user name, from anywhere. */
  perUser: number;
  /** Checks per window for a user name whose budget is full, from address groups that have not failed for it. */
  perUserElsewhere: number;
  /** Failures per window of the whole collector. */
  overall: number;
  windowMs: number;
  /** Names and address groups tracked at most; beyond it the least recently failed is forgotten. */
  maxKeys: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { perAddress: 5, perUser: 10, perUserElsewhere: 3, overall: 300, windowMs: 60_000, maxKeys: 10_000 };

/** The options for --auth-failures N (per address group; the other budgets scale with it). */
export function throttleFor(perAddress: number): ThrottleOptions {
  return { ...DEFAULT_THROTTLE, perAddress, perUser: 2 * perAddress, perUserElsewhere: Math.max(1, Math.ceil(perAddress / 2)), overall: 60 * perAddress };
}

/** A taken slot: say how the check ended. */
export interface Attempt {
  succeeded(): void;
  failed(): void;
}

export type Admission = { ok: true; attempt: Attempt } | { ok: false; waitMs: number; why: "address" | "user" | "overall" };

/** Times of failures (and of checks still running) within the window, oldest first, per key. */
class Windows {
  private readonly times = new Map<string, number[]>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys: number,
  ) {}

  private live(key: string, now: number): number[] {
    const t = this.times.get(key);
    if (!t) return [];
    while (t.length > 0 && t[0]! <= now - this.windowMs) t.shift();
    if (t.length === 0) this.times.delete(key);
    return t;
  }

  count(key: string, now: number): number {
    return this.live(key, now).length;
  }

  /** Milliseconds until the oldest entry leaves the window. */
  waitMs(key: string, now: number): number {
    const t = this.live(key, now);
    return t.length === 0 ? 0 : Math.max(1, t[0]! + this.windowMs - now);
  }

  add(key: string, at: number): void {
    const t = this.live(key, at);
    // Re-inserting keeps the map ordered by last use, so the bound forgets the quietest key.
    if (!this.times.delete(key) && this.times.size >= this.maxKeys) this.times.delete(this.times.keys().next().value!);
    t.push(at);
    this.times.set(key, t);
  }

  remove(key: string, at: number): void {
    const t = this.times.get(key);
    const i = t?.indexOf(at) ?? -1;
    if (i >= 0) t!.splice(i, 1);
    if (t?.length === 0) this.times.delete(key);
  }

  /** Keys starting with `prefix` that hold at least `min` entries. */
  keysAtLeast(prefix: string, min: number, now: number): number {
    let n = 0;
    for (const key of [...this.times.keys()]) if (key.startsWith(prefix) && this.live(key, now).length >= min) n++;
    return n;
  }
}

export class FailureThrottle {
  private readonly w: Windows;

  constructor(
    private readonly o: ThrottleOptions = DEFAULT_THROTTLE,
    private readonly now: () => number = Date.now,
  ) {
    this.w = new Windows(o.windowMs, o.maxKeys);
  }

  /** Takes the slots of one password check from `address` for `user`, or says how long to wait. */
  begin(address: string, user: string): Admission {
    const now = this.now();
    const group = `a ${addressGroup(address)}`;
    const name = `u ${user}`;
    const pair = `p ${user}\u0000${group}`;
    const elsewhere = `e ${user}`;
    if (this.w.count(group, now) >= this.o.perAddress) return { ok: false, waitMs: this.w.waitMs(group, now), why: "address" };
    if (this.w.count("all", now) >= this.o.overall) return { ok: false, waitMs: this.w.waitMs("all", now), why: "overall" };
    const keys = [group, "all", name, pair];
    if (this.w.count(name, now) >= this.o.perUser) {
      // This user name is being guessed: refuse where it was guessed from, admit a few checks from elsewhere.
      if (this.w.count(pair, now) > 0) return { ok: false, waitMs: this.w.waitMs(pair, now), why: "user" };
      if (this.w.count(elsewhere, now) >= this.o.perUserElsewhere) return { ok: false, waitMs: this.w.waitMs(elsewhere, now), why: "user" };
      keys.push(elsewhere);
    }
    for (const k of keys) this.w.add(k, now);
    let settled = false;
    return {
      ok: true,
      attempt: {
        succeeded: () => {
          if (settled) return;
          settled = true;
          for (const k of keys) this.w.remove(k, now);
        },
        failed: () => {
          settled = true;
        },
      },
    };
  }

  /** Milliseconds `address` must wait before any check (tokens: no user name applies). */
  addressWaitMs(address: string): number {
    const now = this.now();
    const group = `a ${addressGroup(address)}`;
    if (this.w.count(group, now) >= this.o.perAddress) return this.w.waitMs(group, now);
    if (this.w.count("all", now) >= this.o.overall) return this.w.waitMs("all", now);
    return 0;
  }

  /** Counts a failure that needed no slot (an unknown bearer token). */
  failed(address: string): void {
    const now = this.now();
    this.w.add(`a ${addressGroup(address)}`, now);
    this.w.add("all", now);
  }

  /** Address groups currently refused (for the collector's own metrics). */
  blockedCount(): number {
    return this.w.keysAtLeast("a ", this.o.perAddress, this.now());
  }
}
