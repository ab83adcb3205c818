import { parseBrokerUrl, portNote } from "../../src/protocol/broker-url.ts";
import type { Logger } from "../../src/log/logger.ts";
import type { IngestTransport } from "./transport.ts";

export interface ExternalBrokerOptions {
  url: string;
  username?: string;
  password?: string;
  /** PEM CA certificate(s) of an mqtts:// broker. */
  ca?: string;
  /**
   * Several collectors sharing one database: subscribe through this MQTT 5 shared subscription
   * group ($share/GROUP/filter), so that the broker hands each message to one collector of the
   * group rather than to all of them.
   */
  shareGroup?: string;
  log: Logger;
}

/** The shared subscription group of collectors on one database: the same on every one of them. */
export const SHARE_GROUP = "outpost-collectors";

/** The filters as subscribed: each under `$share/GROUP/` when shared. */
export function sharedFilters(filters: readonly string[], group: string | undefined): string[] {
  return group === undefined ? [...filters] : filters.map((f) => `$share/${group}/${f}`);
}

/**
 * The collector as a client of an external broker (Mosquitto, EMQX...). Who may publish is
 * then that broker's ACL's job (docs/protocol.md shows a Mosquitto ACL). A clean session:
 * batches published while the collector is away are resent by their agents, which hold them
 * until acknowledged, so the broker need not queue them. MQTT 3.1.1 unless shared (shared
 * subscriptions are MQTT 5's).
 */
export async function connectExternalBroker(o: ExternalBrokerOptions): Promise<IngestTransport> {
  const note = portNote(o.url);
  if (note) o.log.info(`--broker ${note}`);
  // Loaded here, not at start: the embedded broker needs no client, and the client's modules
  // cost an idle collector about 5 MB (issue 28, docs/storage.md).
  const { default: mqtt } = await import("mqtt");
  const client = mqtt.connect(o.url, {
    port: parseBrokerUrl(o.url).port,
    clientId: `outpost-collector-${crypto.randomUUID().slice(0, 8)}`,
    protocolVersion: o.shareGroup === undefined ? 4 : 5,
    clean: true,
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
    username: o.username,
    password: o.password,
    ...(o.ca ? { ca: o.ca } : {}),
  });
  let lastError = "";
  client.on("error", (e) => {
    if (e.message !== lastError) o.log.warn("external broker problem", { url: o.url, err: e.message });
    lastError = e.message;
  });
  client.on("offline", () => o.log.warn("external broker unreachable; retrying", { url: o.url }));
  let filters: string[] = [];
  client.on("connect", () => {
    lastError = "";
    o.log.info("connected to external broker", { url: o.url });
    // Clean session: subscribe again on every connect.
    if (filters.length > 0) client.subscribeAsync(filters, { qos: 1 }).catch((e) => o.log.error("subscribing failed", { err: e }));
  });
  return {
    description: o.shareGroup === undefined ? `external broker ${o.url}` : `external broker ${o.url}, shared subscription group ${o.shareGroup}`,
    async start(f, deliver) {
      filters = sharedFilters(f, o.shareGroup);
      client.on("message", (topic, payload) => deliver(topic, payload));
      if (client.connected) await client.subscribeAsync(filters, { qos: 1 });
    },
    async publish(topic, payload, retain = false) {
      await client.publishAsync(topic, Buffer.from(payload), { qos: 1, retain });
    },
    connectedClients: () => undefined,
    async close() {
      await Promise.race([client.endAsync(), Bun.sleep(1000)]).catch(() => undefined);
      client.end(true);
    },
  };
}
