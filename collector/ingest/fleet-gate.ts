import type { Decoder, Encoder } from "cbor-x";
import type { Logger } from "../../src/log/logger.ts";
import { createLogThrottle } from "../../src/log/throttle.ts";
import type { Status } from "../../src/protocol/control-messages.ts";
import { ProtocolError } from "../../src/protocol/envelope.ts";
import { type ClaimAnswer, decodeConfigStatus, encodeClaim } from "../../src/protocol/fleet-messages.ts";
import { buildTopic, type TopicAddress } from "../../src/protocol/topics.ts";
import type { FeedIdentities, FeedMove } from "../fleet/identities.ts";
import type { RemoteConfigs } from "../fleet/remote-config.ts";

type Feed = Pick<TopicAddress, "tenant" | "feed">;

/** How often an identity refused a feed is told so again while it keeps sending. */
const REFUSAL_REPEAT_MS = 30_000;

/**
 * Ingest's side of fleet management (docs/fleet.md): a status with a claim binds or is refused,
 * and the agent is answered on its `ack` topic; data, events and inventory of an identity that
 * does not hold its feed are dropped unacknowledged (the agent keeps them) and the sender told
 * again, at most every 30 s; configuration reports are recorded when they come from the holder.
 */
export class FleetGate {
  private readonly told = new Map<string, number>();
  private readonly throttle = createLogThrottle(60_000);

  constructor(
    private readonly d: {
      identities: FeedIdentities;
      configs: RemoteConfigs;
      publish(topic: string, payload: Uint8Array): Promise<void>;
      prefix: string;
      enc: Encoder;
      dec: Decoder;
      log: Logger;
      now?: () => number;
    },
  ) {}

  private async answer(addr: Feed, a: ClaimAnswer): Promise<void> {
    try {
      await this.d.publish(buildTopic(this.d.prefix, { tenant: addr.tenant, feed: addr.feed, kind: "ack" }), encodeClaim(this.d.enc, a));
    } catch (e) {
      if (this.throttle("answer").pass) this.d.log.warn("publishing a claim answer failed", { err: (e as Error).message });
    }
  }

  /** Whether a message of `instance` on the feed may be used; when not, its sender hears why (throttled). */
  async admit(addr: Feed, instance: string | undefined, what: string): Promise<boolean> {
    if (await this.d.identities.admits(addr.tenant, addr.feed, instance)) return true;
    const key = `${addr.tenant}\u0000${addr.feed}\u0000${instance}`;
    const t = (this.d.now ?? Date.now)();
    if (t - (this.told.get(key) ?? Number.NEGATIVE_INFINITY) >= REFUSAL_REPEAT_MS) {
      this.told.set(key, t);
      if (this.told.size > 10_000) this.told.delete(this.told.keys().next().value!);
      this.d.log.warn(`dropped ${what} of feed ${addr.feed} from identity ${instance}, which does not hold the feed`, { tenant: addr.tenant });
      await this.answer(addr, await this.d.identities.refusal(addr.tenant, addr.feed, instance!));
    }
    return false;
  }

  /** A status: answers a claim; true when it is the feed's presence (its holder's, or an agent's without identity). */
  async status(addr: Feed, s: Status): Promise<boolean> {
    const v = await this.d.identities.status(addr.tenant, addr.feed, s);
    // Only a connected agent hears the answer: an offline status (a last will) gets none.
    if (v.kind !== "legacy" && v.answer && s.state === "online") await this.answer(addr, v.answer);
    return v.kind !== "refused";
  }

  /**
   * An admin moved or released a feed: the identities concerned hear it at once. After a
   * release, the previous holder and every identity refused the feed are asked to claim again.
   */
  async moved(m: FeedMove): Promise<void> {
    if (m.to !== undefined) {
      await this.answer(m, { instance: m.to, granted: true });
      if (m.from !== undefined && m.from !== m.to) await this.answer(m, await this.d.identities.refusal(m.tenant, m.feed, m.from));
      return;
    }
    const claimants = new Set([...(m.from === undefined ? [] : [m.from]), ...(m.claimants ?? [])]);
    for (const instance of claimants) await this.answer(m, { instance, granted: false, reclaim: true });
  }

  /** A `config-status` report: recorded when its sender holds the feed. */
  async configStatus(addr: Feed, topic: string, payload: Uint8Array): Promise<"stored" | "refused" | ProtocolError> {
    let s: ReturnType<typeof decodeConfigStatus>;
    try {
      s = decodeConfigStatus(this.d.dec, payload);
    } catch (e) {
      return e instanceof ProtocolError ? e : new ProtocolError(String(e));
    }
    if (!(await this.admit(addr, s.instance, `a configuration report (${topic})`))) return "refused";
    await this.d.configs.report(addr.tenant, addr.feed, s);
    return "stored";
  }
}
