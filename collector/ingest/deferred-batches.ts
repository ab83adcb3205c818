import type { AckKind } from "../../src/protocol/control-messages.ts";

/** A batch the collector could not store for a passing reason (a full disk), to be asked for again. */
export interface DeferredBatch {
  tenant: string;
  feed: string;
  kind: AckKind;
  session: number;
  seq: number;
  /** The agent identity that sent it (docs/fleet.md). */
  instance?: string;
}

/** One ack's worth of resend requests: the batches of one feed, stream and session. */
export interface ResendRequest {
  tenant: string;
  feed: string;
  kind: AckKind;
  session: number;
  seqs: number[];
  instance?: string;
}

/**
 * Batches refused while storage was failing. Without this, an agent learns that storage works
 * again only when its resend timer fires, which backs off to several times `--ack-timeout`;
 * with it, the collector asks for them as soon as storage recovers. Bounded: past `max`
 * entries the oldest are forgotten, and those agents fall back to their own timers.
 */
export class DeferredBatches {
  private readonly byKey = new Map<string, DeferredBatch>();

  constructor(private readonly max = 10_000) {}

  add(b: DeferredBatch): void {
    const key = JSON.stringify([b.tenant, b.feed, b.kind, b.session, b.seq, b.instance ?? ""]);
    this.byKey.delete(key);
    this.byKey.set(key, b);
    if (this.byKey.size > this.max) {
      const oldest = this.byKey.keys().next().value;
      if (oldest !== undefined) this.byKey.delete(oldest);
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  /** Everything deferred, grouped into one request per feed, stream and session; then forgets it. */
  takeAll(): ResendRequest[] {
    const groups = new Map<string, ResendRequest>();
    for (const b of this.byKey.values()) {
      const key = JSON.stringify([b.tenant, b.feed, b.kind, b.session, b.instance ?? ""]);
      const g = groups.get(key);
      if (g) g.seqs.push(b.seq);
      else groups.set(key, { tenant: b.tenant, feed: b.feed, kind: b.kind, session: b.session, seqs: [b.seq], ...(b.instance === undefined ? {} : { instance: b.instance }) });
    }
    this.byKey.clear();
    return [...groups.values()];
  }
}
