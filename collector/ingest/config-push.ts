import type { Encoder } from "cbor-x";
import type { Logger } from "../../src/log/logger.ts";
import { encodeConfig } from "../../src/protocol/fleet-messages.ts";
import { buildTopic } from "../../src/protocol/topics.ts";
import type { RemoteConfigs } from "../fleet/remote-config.ts";
import type { ConfigRevision } from "../store/fleet/types.ts";

/**
 * Publishes each feed's remote configuration, retained on its `config` topic (docs/fleet.md):
 * when its agent comes online (a broker may have lost retained messages), and to the feeds a
 * new revision reaches (the newest revision that reaches a feed is the one it runs).
 */
export class ConfigPublisher {
  /** Feeds published to since start, per tenant, for a republication (SIGHUP). */
  private readonly published = new Map<string, Set<string>>();

  constructor(
    private readonly d: {
      configs: RemoteConfigs;
      publish(topic: string, payload: Uint8Array, retain: boolean): Promise<void>;
      prefix: string;
      enc: Encoder;
      log: Logger;
    },
  ) {}

  async agentOnline(tenant: string, feed: string): Promise<void> {
    try {
      await this.send(tenant, feed, await this.d.configs.messageFor(tenant, feed));
    } catch (e) {
      this.d.log.warn("pushing a configuration failed", { tenant, feed, err: (e as Error).message });
    }
  }

  async revisionAdded(r: ConfigRevision): Promise<void> {
    try {
      for (const feed of await this.d.configs.feedsReached(r)) await this.send(r.tenant, feed, { revision: r.revision, config: r.config });
    } catch (e) {
      // Each agent still gets it when it next comes online.
      this.d.log.warn("pushing a configuration revision failed", { tenant: r.tenant, revision: r.revision, err: (e as Error).message });
    }
  }

  async republishAll(): Promise<void> {
    for (const [tenant, feeds] of this.published) for (const feed of feeds) await this.agentOnline(tenant, feed);
  }

  private async send(tenant: string, feed: string, m: { revision: number; config: Record<string, unknown> }): Promise<void> {
    await this.d.publish(buildTopic(this.d.prefix, { tenant, feed, kind: "config" }), encodeConfig(this.d.enc, m), true);
    let feeds = this.published.get(tenant);
    if (!feeds) this.published.set(tenant, (feeds = new Set()));
    feeds.add(feed);
    this.d.log.debug("pushed a configuration", { tenant, feed, revision: m.revision });
  }
}
