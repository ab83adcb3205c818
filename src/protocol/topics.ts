/**
 * MQTT topics between agents and collectors: PREFIX/TENANT/FEED/KIND, where tenant and feed
 * are percent-encoded so that "/", "+", "#" and "$" in them cannot change the topic's shape.
 */
export const TOPIC_KINDS = ["data", "ack", "events", "inventory", "triggers", "status", "config", "config-status", "upgrade"] as const;
export type TopicKind = (typeof TOPIC_KINDS)[number];

/** Kinds an agent publishes; the others flow from collector to agent. */
export const AGENT_PUBLISHES: ReadonlySet<TopicKind> = new Set(["data", "events", "inventory", "status", "config-status"]);
/** Kinds an agent subscribes to. */
export const AGENT_SUBSCRIBES: ReadonlySet<TopicKind> = new Set(["ack", "triggers", "config", "upgrade"]);

export interface TopicAddress {
  tenant: string;
  feed: string;
  kind: TopicKind;
}

/** encodeURIComponent leaves only [A-Za-z0-9-_.!~*'()] unescaped, none of them special to MQTT. */
export function encodeSegment(s: string): string {
  return encodeURIComponent(s);
}

/** Why `prefix` cannot be the first topic level, or undefined when it can. */
export function topicPrefixProblem(prefix: string): string | undefined {
  if (prefix === "") return "must not be empty";
  if (/[/+#]/.test(prefix)) return "must be one topic level, without /, + or #";
  return undefined;
}

/**
 * The MQTT client id of a feed's agent. A broker that checks credentials binds it to the
 * credential of that tenant and feed, so nobody else can take the session over. An agent with
 * an identity (docs/fleet.md) adds its instance id, so that two agents claiming one feed (a
 * cloned device) do not take each other's connection over.
 */
export function agentClientId(tenant: string, feed: string, instance?: string): string {
  const base = `outpost-agent:${encodeSegment(tenant)}:${encodeSegment(feed)}`;
  return instance === undefined ? base : `${base}:${instance}`;
}

/** Whether `clientId` is one of the agent client ids of that feed: without or with an instance id. */
export function isAgentClientIdOf(clientId: string, tenant: string, feed: string): boolean {
  const base = agentClientId(tenant, feed);
  return clientId === base || (clientId.startsWith(`${base}:`) && /^[0-9a-f]{32}$/.test(clientId.slice(base.length + 1)));
}

export function buildTopic(prefix: string, a: TopicAddress): string {
  return `${prefix}/${encodeSegment(a.tenant)}/${encodeSegment(a.feed)}/${a.kind}`;
}

/** Topic filter matching one kind from every tenant and feed, for the collector. */
export function kindFilter(prefix: string, kind: TopicKind): string {
  return `${prefix}/+/+/${kind}`;
}

function decodeSegment(s: string): string | undefined {
  try {
    const d = decodeURIComponent(s);
    return d === "" ? undefined : d;
  } catch {
    return undefined;
  }
}

/** The address of a topic, or undefined when it is not one of ours. */
export function parseTopic(prefix: string, topic: string): TopicAddress | undefined {
  const parts = topic.split("/");
  if (parts.length !== 4 || parts[0] !== prefix) return undefined;
  const kind = parts[3] as TopicKind;
  if (!TOPIC_KINDS.includes(kind)) return undefined;
  const tenant = decodeSegment(parts[1]!);
  const feed = decodeSegment(parts[2]!);
  if (tenant === undefined || feed === undefined) return undefined;
  return { tenant, feed, kind };
}

/**
 * A subscription filter's tenant, feed (undefined when "+") and kind, or undefined when the
 * filter reaches beyond one tenant (wildcards in the prefix or tenant level, "#", other shapes).
 */
export function parseFilter(prefix: string, filter: string): { tenant: string; feed?: string; kind: TopicKind } | undefined {
  const parts = filter.split("/");
  if (parts.length !== 4 || parts[0] !== prefix) return undefined;
  const kind = parts[3] as TopicKind;
  if (!TOPIC_KINDS.includes(kind)) return undefined;
  const tenant = parts[1]!.includes("+") || parts[1]!.includes("#") ? undefined : decodeSegment(parts[1]!);
  if (tenant === undefined) return undefined;
  if (parts[2] === "+") return { tenant, kind };
  const feed = parts[2]!.includes("#") || parts[2]!.includes("+") ? undefined : decodeSegment(parts[2]!);
  if (feed === undefined) return undefined;
  return { tenant, feed, kind };
}
