import { AGENT_PUBLISHES, AGENT_SUBSCRIBES, parseFilter, parseTopic } from "../../src/protocol/topics.ts";

/**
 * Who an MQTT client of the embedded broker is. With --auth-file every client is an agent
 * credential's, bound to one tenant and feed. Without one (loopback only) clients are not
 * identified ("open") and may use any tenant's topics. Either way agents may only publish
 * agent→collector kinds and subscribe to collector→agent kinds, so no agent can forge an ack.
 */
export type MqttIdentity = { kind: "open" } | { kind: "agent"; tenant: string; feed: string };

export const OPEN_MQTT: MqttIdentity = { kind: "open" };

/** Why `who` may not publish to `topic`, or undefined when it may. */
export function publishDenied(prefix: string, who: MqttIdentity, topic: string): string | undefined {
  const a = parseTopic(prefix, topic);
  if (!a) return `topic ${topic} is not an agent topic`;
  if (!AGENT_PUBLISHES.has(a.kind)) return `agents do not publish ${a.kind} messages`;
  if (who.kind === "agent" && a.tenant !== who.tenant) return `topic ${topic} belongs to another tenant`;
  if (who.kind === "agent" && a.feed !== who.feed) return `topic ${topic} belongs to another feed`;
  return undefined;
}

/** Why `who` may not subscribe to `filter`, or undefined when it may. */
export function subscribeDenied(prefix: string, who: MqttIdentity, filter: string): string | undefined {
  const f = parseFilter(prefix, filter);
  if (!f) return `filter ${filter} reaches beyond one tenant`;
  if (!AGENT_SUBSCRIBES.has(f.kind)) return `agents do not receive ${f.kind} messages`;
  if (who.kind === "agent" && f.tenant !== who.tenant) return `filter ${filter} belongs to another tenant`;
  // An agent credential names one feed: a feed wildcard would reach its tenant's other feeds.
  if (who.kind === "agent" && f.feed !== who.feed) return `filter ${filter} is not this agent's feed`;
  return undefined;
}
