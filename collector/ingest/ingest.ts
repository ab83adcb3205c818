import type { OptionValues } from "../../src/config/options.ts";
import type { Logger } from "../../src/log/logger.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { DEFAULT_CLOCK_WINDOW } from "../../src/protocol/clock-window.ts";
import { kindFilter } from "../../src/protocol/topics.ts";
import { rateOf } from "../../src/telemetry/rate.ts";
import type { Telemetry } from "../../src/telemetry/registry.ts";
import type { PointsBus } from "../events/points-bus.ts";
import type { Alert, Event } from "../../src/alerts/model.ts";
import type { Inventory } from "../inventory/context.ts";
import type { MetricsStore } from "../store/metrics/types.ts";
import { parseAgentCredentials } from "./agent-access.ts";
import { startEmbeddedBroker } from "./embedded-broker.ts";
import { connectExternalBroker } from "./external-broker.ts";
import { registerIngestCounters } from "./ingest-telemetry.ts";
import { MessageHandler } from "./message-handler.ts";
import type { IngestTransport } from "./transport.ts";
import { type TriggerDefinitionsSource, TriggerPublisher } from "./trigger-push.ts";

export interface Ingest {
  /** Port of the embedded broker, when it runs. */
  mqttPort?: number;
  description: string;
  close(): Promise<void>;
}

/** What ingest needs from the alerting service (collector/alerts/service.ts). */
export interface IngestAlerting extends TriggerDefinitionsSource {
  ingestFired(tenant: string, items: readonly (Alert | Event)[]): Promise<unknown>;
  onDefinitionsChanged(fn: (tenant: string, triggerIds: readonly string[]) => void): () => void;
}

export interface IngestDeps {
  store: MetricsStore;
  inventory?: Inventory;
  /** Agents' local triggers: pushed from it, and what they fire stored into it. */
  alerting?: IngestAlerting;
  bus: PointsBus;
  telemetry: Telemetry;
  log: Logger;
}

/**
 * MQTT ingest: an external broker when --broker is given, otherwise the embedded broker on
 * --mqtt-port (0 disables ingest). Subscribes only once the store is ready.
 */
export async function startIngest(values: OptionValues, deps: IngestDeps): Promise<Ingest | undefined> {
  const prefix = String(values["topic-prefix"] ?? "svc");
  const brokerUrl = values.broker === undefined ? "" : String(values.broker).trim();
  const mqttPort = Number(values["mqtt-port"] ?? 1883);
  const log = deps.log.child("ingest");
  let transport: IngestTransport & { port?: number };
  if (brokerUrl !== "") {
    transport = await connectExternalBroker({
      url: brokerUrl,
      username: values["broker-username"] === undefined ? undefined : String(values["broker-username"]),
      password: values["broker-password"] === undefined ? undefined : String(values["broker-password"]),
      log,
    });
  } else if (mqttPort > 0) {
    const credentials = parseAgentCredentials((values["agent-credentials"] as string[] | undefined) ?? []);
    transport = await startEmbeddedBroker({ host: String(values["mqtt-host"] ?? "0.0.0.0"), port: mqttPort, prefix, credentials, log });
    if (!credentials.required) log.info("no agent credentials configured: any agent may connect, for any tenant");
  } else {
    log.info("MQTT ingest disabled (--mqtt-port 0 and no --broker)");
    return undefined;
  }

  const counters = registerIngestCounters(deps.telemetry);
  deps.telemetry.gauge("outpost_collector_agents_connected", "clients connected to the embedded broker (-1 with an external broker)", () => transport.connectedClients() ?? -1);
  deps.telemetry.gauge("outpost_collector_ingest_points_per_second", "points committed from agents per second, over about the last 10 s", rateOf(() => counters.points.value, 10_000));
  const enc = createEncoder();
  const alerting = deps.alerting;
  const triggers = alerting && new TriggerPublisher({ source: alerting, publish: (t, p, r) => transport.publish(t, p, r), prefix, enc, log: log.child("triggers") });
  const unsubscribe = triggers && alerting.onDefinitionsChanged((tenant) => void triggers.definitionsChanged(tenant));
  const handler = new MessageHandler({
    store: deps.store,
    inventory: deps.inventory,
    alerting,
    onAgentOnline: triggers && ((tenant, feed) => void triggers.agentOnline(tenant, feed)),
    bus: deps.bus,
    publish: (t, p) => transport.publish(t, p),
    prefix,
    enc,
    dec: createDecoder(),
    counters,
    clockWindow: DEFAULT_CLOCK_WINDOW,
    log,
  });
  await transport.start([kindFilter(prefix, "data"), kindFilter(prefix, "status"), kindFilter(prefix, "inventory"), kindFilter(prefix, "events")], (topic, payload) => void handler.handle(topic, payload));
  log.info("MQTT ingest started", { via: transport.description });
  return {
    mqttPort: transport.port,
    description: transport.description,
    async close() {
      unsubscribe?.();
      await transport.close();
      await handler.drain();
    },
  };
}
