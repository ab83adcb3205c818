import mqtt from "mqtt";
import type { Logger } from "../../src/log/logger.ts";
import type { IngestTransport } from "./transport.ts";

export interface ExternalBrokerOptions {
  url: string;
  username?: string;
  password?: string;
  /** PEM CA certificate(s) of an mqtts:// broker. */
  ca?: string;
  log: Logger;
}

/**
 * The collector as a client of an external broker (Mosquitto, EMQX...). Who may publish is
 * then that broker's ACL's job (docs/protocol.md shows a Mosquitto ACL). A clean session:
 * batches published while the collector is away are resent by their agents, which hold them
 * until acknowledged, so the broker need not queue them.
 */
export async function connectExternalBroker(o: ExternalBrokerOptions): Promise<IngestTransport> {
  const client = mqtt.connect(o.url, {
    clientId: `outpost-collector-${crypto.randomUUID().slice(0, 8)}`,
    protocolVersion: 4,
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
    description: `external broker ${o.url}`,
    async start(f, deliver) {
      filters = f;
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
