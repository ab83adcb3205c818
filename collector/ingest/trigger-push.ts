import { createHash } from "node:crypto";
import type { Encoder } from "cbor-x";
import { isGroupTrigger } from "../../src/alerts/groups.ts";
import { type ActionDefinition, type FullTrigger, SOURCE_NONE } from "../../src/alerts/model.ts";
import type { Logger } from "../../src/log/logger.ts";
import { buildTopic } from "../../src/protocol/topics.ts";
import { encodeTriggers } from "../../src/protocol/triggers-messages.ts";

/**
 * The rule (docs/local-triggers.md): an agent evaluates the triggers whose `source` is its feed
 * id, group triggers excepted. The collector's engine only ever sees data without a source
 * (metric points), so it never fires these itself: nothing fires twice.
 */
export function isLocalTriggerOf(full: FullTrigger, feed: string): boolean {
  // `_none_` is no feed: it is the source of every trigger created without one.
  return full.trigger.source === feed && feed !== SOURCE_NONE && !isGroupTrigger(full.trigger);
}

export interface TriggerDefinitionsSource {
  fullTriggers(tenant: string): Promise<FullTrigger[]>;
  /** Definitions of the plugins agents run (plugin `agent`). */
  agentActionDefinitions(tenant: string): Promise<ActionDefinition[]>;
}

/** The agent action definitions a set of triggers links, and the global ones, in a stable order. */
export function actionsOfSet(set: readonly FullTrigger[], defs: readonly ActionDefinition[]): ActionDefinition[] {
  if (set.length === 0) return [];
  const linked = new Set<string>();
  for (const f of set) for (const a of f.trigger.actions ?? []) linked.add(`${a.actionPlugin}\u0000${a.actionId}`);
  return defs
    .filter((d) => d.global === true || linked.has(`${d.actionPlugin}\u0000${d.actionId}`))
    .sort((a, b) => (a.actionPlugin + a.actionId < b.actionPlugin + b.actionId ? -1 : 1));
}

/**
 * Publishes to each agent, retained on its `triggers` topic, the triggers it evaluates: when
 * the agent comes online (a restarted broker may have lost retained messages) and whenever a
 * definition of its tenant changes, skipping a set equal to the one last published.
 */
export class TriggerPublisher {
  /** tenant → feed → digest of the set last published. */
  private readonly published = new Map<string, Map<string, string>>();
  /** One publication round per tenant at a time, in order. */
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly d: {
      source: TriggerDefinitionsSource;
      publish(topic: string, payload: Uint8Array, retain: boolean): Promise<void>;
      prefix: string;
      enc: Encoder;
      log: Logger;
    },
  ) {}

  /** An agent connected: publish its set even if unchanged. */
  agentOnline(tenant: string, feed: string): Promise<void> {
    return this.enqueue(tenant, async () => {
      await this.publishSets(tenant, await this.d.source.fullTriggers(tenant), [feed], true);
    });
  }

  /** Every set published since start, again, even unchanged (after a broker lost its retained messages). */
  async republishAll(): Promise<void> {
    const jobs = [...this.published].map(([tenant, feeds]) =>
      this.enqueue(tenant, async () => {
        await this.publishSets(tenant, await this.d.source.fullTriggers(tenant), [...feeds.keys()], true);
      }),
    );
    await Promise.all(jobs);
  }

  /** Definitions of the tenant changed: republish every set that differs now. */
  definitionsChanged(tenant: string): Promise<void> {
    return this.enqueue(tenant, async () => {
      const all = await this.d.source.fullTriggers(tenant);
      const feeds = new Set(this.published.get(tenant)?.keys());
      for (const f of all) if (f.trigger.source && isLocalTriggerOf(f, f.trigger.source)) feeds.add(f.trigger.source);
      await this.publishSets(tenant, all, [...feeds], false);
    });
  }

  private async publishSets(tenant: string, all: FullTrigger[], feeds: string[], force: boolean): Promise<void> {
    const seen = this.published.get(tenant) ?? new Map<string, string>();
    this.published.set(tenant, seen);
    const defs = feeds.length > 0 ? await this.d.source.agentActionDefinitions(tenant) : [];
    for (const feed of feeds) {
      const set = all.filter((f) => isLocalTriggerOf(f, feed)).sort((a, b) => (a.trigger.id < b.trigger.id ? -1 : 1));
      const actions = actionsOfSet(set, defs);
      // A set without actions keeps the digest it had before actions travelled with triggers.
      const digest = createHash("sha1").update(JSON.stringify(actions.length > 0 ? [set, actions] : set)).digest("hex");
      if (!force && seen.get(feed) === digest) continue;
      const topic = buildTopic(this.d.prefix, { tenant, feed, kind: "triggers" });
      try {
        await this.d.publish(topic, encodeTriggers(this.d.enc, { digest, triggers: set, actions }), true);
        seen.set(feed, digest);
        this.d.log.info("pushed local triggers", { tenant, feed, triggers: set.length, actions: actions.length || undefined, digest });
      } catch (e) {
        // Published again when the agent next comes online or a definition changes.
        this.d.log.warn("pushing local triggers failed", { tenant, feed, err: (e as Error).message });
      }
    }
  }

  private enqueue(tenant: string, job: () => Promise<void>): Promise<void> {
    const next = (this.queues.get(tenant) ?? Promise.resolve()).then(job).catch((e) => this.d.log.error("pushing local triggers failed", { tenant, err: (e as Error).message }));
    this.queues.set(tenant, next);
    return next;
  }
}
