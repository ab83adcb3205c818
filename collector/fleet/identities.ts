import type { Logger } from "../../src/log/logger.ts";
import type { Status } from "../../src/protocol/control-messages.ts";
import type { ClaimAnswer } from "../../src/protocol/fleet-messages.ts";
import { verifyClaim } from "../../src/protocol/identity.ts";
import type { FleetStore } from "../store/fleet/types.ts";

/** What a status message means for its feed (docs/fleet.md, "Identity"). */
export type StatusVerdict =
  /** An agent without identity (older): handled as before identities existed. */
  | { kind: "legacy" }
  /** The feed's holder (or an identity on a feed nobody holds, without a claim): its presence counts. */
  | { kind: "holder"; answer?: ClaimAnswer }
  /** Another identity than the holder's: refused, its presence ignored. */
  | { kind: "refused"; answer: ClaimAnswer; holderHost?: string };

/** A feed moved or released by an admin. */
export interface FeedMove {
  tenant: string;
  feed: string;
  from?: string;
  to?: string;
  /** A release: the identities refused the feed until now (asked to claim it again). */
  claimants?: string[];
}

interface Cached {
  holder: string | undefined;
  at: number;
}

/**
 * The feeds' identities: a signed claim binds an unheld feed to its identity, a claim by
 * another identity is refused and recorded; messages of the feed are admitted only from its
 * holder. Holders are cached for a few seconds: a move made through another collector of the
 * same database takes effect here within `cacheMs`.
 */
export class FeedIdentities {
  private readonly cache = new Map<string, Cached>();
  private readonly moveListeners = new Set<(m: FeedMove) => void>();
  private readonly now: () => number;
  private readonly cacheMs: number;

  constructor(
    private readonly d: { store: FleetStore; log: Logger; now?: () => number; cacheMs?: number },
  ) {
    this.now = d.now ?? Date.now;
    this.cacheMs = d.cacheMs ?? 10_000;
  }

  private key(tenant: string, feed: string): string {
    return `${tenant}\u0000${feed}`;
  }

  /** The identity holding the feed (undefined: nobody), from the cache when fresh. */
  async holderOf(tenant: string, feed: string): Promise<string | undefined> {
    const k = this.key(tenant, feed);
    const c = this.cache.get(k);
    const t = this.now();
    if (c && t - c.at < this.cacheMs) return c.holder;
    const holder = (await this.d.store.identity(tenant, feed))?.instance;
    this.cache.set(k, { holder, at: t });
    return holder;
  }

  /** Whether a message of the feed from `instance` may be used: its holder's, one of an unheld feed, or one without identity. */
  async admits(tenant: string, feed: string, instance: string | undefined): Promise<boolean> {
    if (instance === undefined) return true;
    const holder = await this.holderOf(tenant, feed);
    return holder === undefined || holder === instance;
  }

  /** Reads a status: an online one with a valid claim binds or is refused; others are checked against the holder. */
  async status(tenant: string, feed: string, s: Status): Promise<StatusVerdict> {
    const instance = s.instance;
    if (instance === undefined) return { kind: "legacy" };
    if (s.state !== "online" || !s.key || !s.sig) {
      return (await this.admits(tenant, feed, instance)) ? { kind: "holder" } : { kind: "refused", answer: await this.refusal(tenant, feed, instance) };
    }
    if (!verifyClaim({ tenant, feed, instance, session: s.session, at: s.at }, s.key, s.sig)) {
      // Not proven: treated as the claim of nobody; its presence is not recorded either.
      this.d.log.warn("ignored a claim whose signature does not verify", { tenant, feed, instance });
      return { kind: "refused", answer: { instance, granted: false } };
    }
    const t = this.now();
    const out = await this.d.store.claim({ tenant, feed, instance, publicKey: Buffer.from(s.key).toString("hex"), host: s.host, tags: s.tags ?? {}, at: t });
    this.cache.set(this.key(tenant, feed), { holder: out.holder.instance, at: t });
    if (out.granted) {
      if (out.first) this.d.log.info("feed claimed by an agent identity", { tenant, feed, instance, host: s.host });
      return { kind: "holder", answer: { instance, granted: true } };
    }
    const h = out.holder;
    this.d.log.warn(
      `refused the claim of feed ${feed} by identity ${instance}${s.host ? ` on host ${s.host}` : ""}: identity ${h.instance}${h.host ? ` on host ${h.host}` : ""} holds it since ${new Date(h.since).toISOString()}; its data is not stored (docs/fleet.md)`,
      { tenant, attempts: out.conflict.attempts },
    );
    return { kind: "refused", answer: { instance, granted: false, holder: { instance: h.instance, since: h.since, ...(h.host ? { host: h.host } : {}) } }, holderHost: h.host };
  }

  /** The refusal to send an identity that is not the feed's holder. */
  async refusal(tenant: string, feed: string, instance: string): Promise<ClaimAnswer> {
    const h = await this.d.store.identity(tenant, feed);
    return { instance, granted: false, ...(h ? { holder: { instance: h.instance, since: h.since, ...(h.host ? { host: h.host } : {}) } } : {}) };
  }

  /** Told of every move or release (the agents concerned are answered over MQTT). */
  onMove(fn: (m: FeedMove) => void): () => void {
    this.moveListeners.add(fn);
    return () => this.moveListeners.delete(fn);
  }

  /** Moves the feed to `to`, or releases it for the next claimer; recorded with `author`. */
  async move(tenant: string, feed: string, to: string | undefined, author: string): Promise<FeedMove> {
    const { from } = await this.d.store.moveFeed(tenant, feed, to, author, this.now());
    this.cache.delete(this.key(tenant, feed));
    const m: FeedMove = { tenant, feed, ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
    if (to === undefined) m.claimants = (await this.d.store.conflicts(tenant, feed)).map((c) => c.instance);
    this.d.log.info(to === undefined ? "feed released by an admin" : "feed moved to another identity by an admin", { tenant, feed, from, to, author });
    for (const fn of this.moveListeners) fn(m);
    return m;
  }
}
