import type { OptionValues } from "../../src/config/options.ts";
import type { Logger } from "../../src/log/logger.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { DEFAULT_CLOCK_WINDOW } from "../../src/protocol/clock-window.ts";
import { kindFilter } from "../../src/protocol/topics.ts";
import { rateOf } from "../../src/telemetry/rate.ts";
import type { Telemetry } from "../../src/telemetry/registry.ts";
import type { PointsBus } from "../events/points-bus.ts";
import type { Action, Alert, Event } from "../../src/alerts/model.ts";
import type { Inventory } from "../inventory/context.ts";
import type { MetricsStore } from "../store/metrics/types.ts";
import type { AuthGate } from "../auth/gate.ts";
import type { TlsMaterial } from "../tls.ts";
import { plainMqttHost } from "../exposure.ts";
import { type EmbeddedBroker, startEmbeddedBroker } from "./embedded-broker.ts";
import { connectExternalBroker } from "./external-broker.ts";
import { registerIngestCounters } from "./ingest-telemetry.ts";
import { MessageHandler } from "./message-handler.ts";
import type { IngestTransport } from "./transport.ts";
import { type TriggerDefinitionsSource, TriggerPublisher } from "./trigger-push.ts";
import { ConfigPublisher } from "./config-push.ts";
import { FleetGate } from "./fleet-gate.ts";
import type { FeedIdentities } from "../fleet/identities.ts";
import type { RemoteConfigs } from "../fleet/remote-config.ts";
import type { MemoryGovernor } from "../../src/http/memory-governor.ts";
import type { Status } from "../../src/protocol/control-messages.ts";

export interface Ingest {
  /** Ports of the embedded broker, when it runs (plain and TLS). */
  mqttPort?: number;
  mqttsPort?: number;
  /** The embedded broker's plain listener as a client on this machine reaches it (mqtt://127.0.0.1:PORT). */
  plainUrl?: string;
  description: string;
  /** Publishes every agent's local triggers and configuration again, even unchanged (SIGHUP). */
  repushTriggers(): Promise<void>;
  /** After SIGHUP: revoked agents are disconnected, new certificates served. */
  reload(material?: TlsMaterial): void;
  close(): Promise<void>;
}

/** What ingest needs from the alerting service (collector/alerts/service.ts). */
export interface IngestAlerting extends TriggerDefinitionsSource {
  ingestFired(tenant: string, items: readonly (Alert | Event)[]): Promise<unknown>;
  ingestAgentActions(tenant: string, feed: string, actions: readonly Action[]): Promise<unknown>;
  onDefinitionsChanged(fn: (tenant: string, triggerIds: readonly string[]) => void): () => void;
}

export interface IngestDeps {
  store: MetricsStore;
  inventory?: Inventory;
  /** Agents' local triggers: pushed from it, and what they fire stored into it. */
  alerting?: IngestAlerting;
  bus: PointsBus;
  /** Agent identities and remote configuration (docs/fleet.md). */
  fleet?: { identities: FeedIdentities; configs: RemoteConfigs };
  /** --value-precision (write-points.ts). */
  valuePrecision?: number;
  telemetry: Telemetry;
  log: Logger;
  /** The MQTT port is the default, not chosen: when it is taken, use a free one (quick start). */
  portFallback?: boolean;
  /** The collector's storage condition: when it recovers, agents are asked to resend what was refused. */
  health?: { onRecovered(fn: () => void): () => void };
  /** Agents' credentials (--auth-file); without, the embedded broker accepts any client. */
  gate?: AuthGate;
  /** The collector's certificate: the embedded broker then also listens for MQTT over TLS. */
  tls?: TlsMaterial;
  /** The collector's password on an external broker (--broker-password, from the environment, file or TOML). */
  brokerPassword?: string;
  /** CA of an external broker's certificate (mqtts://). */
  brokerCa?: string;
  /**
   * With an external broker: the shared subscription group of the collectors sharing one
   * database (--database-url), each message then consumed by one of them.
   */
  shareGroup?: string;
  /** Collects garbage as batches arrive when memory is above --memory-target. */
  memory?: MemoryGovernor;
  /** Agent upgrades (docs/fleet.md): told every status, and given the broker to publish orders on. */
  upgrades?: { onStatus(tenant: string, feed: string, s: Status): void; attach(publish: (topic: string, payload: Uint8Array, retain: boolean) => Promise<void>): Promise<void> };
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
  let transport: IngestTransport & { port?: number; tlsPort?: number; plainUrl?: string; reload?: EmbeddedBroker["reload"]; pendingClients?: () => number };
  const mqttsPort = deps.tls ? Number(values["mqtts-port"] ?? 8883) : 0;
  if (brokerUrl !== "") {
    transport = await connectExternalBroker({
      url: brokerUrl,
      username: values["broker-username"] === undefined ? undefined : String(values["broker-username"]),
      password: deps.brokerPassword,
      ca: deps.brokerCa,
      shareGroup: deps.shareGroup,
      log,
    });
  } else if (mqttPort > 0 || mqttsPort > 0) {
    const host = String(values["mqtt-host"] ?? "127.0.0.1");
    const plainHost = plainMqttHost(values, deps.tls !== undefined && mqttsPort > 0);
    if (mqttPort > 0 && plainHost !== host) log.info(`plain MQTT listens on ${plainHost} only; on ${host}, MQTT over TLS (--mqtt-plain-host to change)`);
    transport = await startEmbeddedBroker({
      host,
      plainHost,
      port: mqttPort,
      tls: deps.tls && mqttsPort > 0 ? { port: mqttsPort, material: deps.tls } : undefined,
      prefix,
      gate: deps.gate,
      limits: {
        maxPacketBytes: Number(values["mqtt-max-packet"] ?? 16 * 1024 ** 2),
        preAuthBytes: Number(values["mqtt-preauth-max-bytes"] ?? 16 * 1024),
        preAuthMs: Number(values["mqtt-preauth-timeout"] ?? 5000),
        maxPending: Number(values["mqtt-preauth-max-connections"] ?? 128),
      },
      log,
      portFallback: deps.portFallback,
    });
    if (!deps.gate) log.info("no --auth-file: any MQTT client may connect, for any tenant (the broker listens on loopback only unless --insecure)");
  } else {
    log.info("MQTT ingest disabled (--mqtt-port 0 and no --broker)");
    return undefined;
  }

  const counters = registerIngestCounters(deps.telemetry);
  deps.telemetry.gauge("outpost_collector_agents_connected", "clients connected to the embedded broker (-1 with an external broker)", () => transport.connectedClients() ?? -1);
  deps.telemetry.gauge("outpost_collector_mqtt_connections_pending_login", "connections to the embedded broker not logged in yet (-1 with an external broker)", () => transport.pendingClients?.() ?? -1);
  deps.telemetry.gauge("outpost_collector_ingest_points_per_second", "points committed from agents per second, over about the last 10 s", rateOf(() => counters.points.value, 10_000));
  const enc = createEncoder();
  const alerting = deps.alerting;
  const triggers = alerting && new TriggerPublisher({ source: alerting, publish: (t, p, r) => transport.publish(t, p, r), prefix, enc, log: log.child("triggers") });
  const unsubscribe = triggers && alerting.onDefinitionsChanged((tenant) => void triggers.definitionsChanged(tenant));
  const dec = createDecoder();
  const fleet = deps.fleet;
  const configs = fleet && new ConfigPublisher({ configs: fleet.configs, publish: (t, p, r) => transport.publish(t, p, r), prefix, enc, log: log.child("config") });
  const offRevision = configs && fleet.configs.onRevision((r) => void configs.revisionAdded(r));
  const gate = fleet && new FleetGate({ ...fleet, publish: (t, p) => transport.publish(t, p), prefix, enc, dec, log: log.child("fleet") });
  const offMove = gate && fleet.identities.onMove((m) => void gate.moved(m));
  const handler = new MessageHandler({
    store: deps.store,
    inventory: deps.inventory,
    alerting,
    fleet: gate,
    onAgentOnline: (tenant, feed, identified) => {
      if (triggers) void triggers.agentOnline(tenant, feed);
      // Agents that predate identities do not subscribe to configurations.
      if (configs && identified) void configs.agentOnline(tenant, feed);
    },
    onStatus: deps.upgrades && ((tenant, feed, s) => deps.upgrades!.onStatus(tenant, feed, s)),
    bus: deps.bus,
    valuePrecision: deps.valuePrecision,
    publish: (t, p) => transport.publish(t, p),
    prefix,
    enc,
    dec,
    counters,
    clockWindow: DEFAULT_CLOCK_WINDOW,
    log,
    memory: deps.memory,
  });
  const offRecovered = deps.health?.onRecovered(() => void handler.storageRecovered());
  const kinds = ["data", "status", "inventory", "events", ...(gate ? (["config-status"] as const) : [])] as const;
  await transport.start(
    kinds.map((k) => kindFilter(prefix, k)),
    (topic, payload) => void handler.handle(topic, payload),
  );
  log.info("MQTT ingest started", { via: transport.description });
  await deps.upgrades?.attach((t, p, r) => transport.publish(t, p, r));
  return {
    mqttPort: transport.port,
    mqttsPort: transport.tlsPort,
    plainUrl: transport.plainUrl,
    description: transport.description,
    async repushTriggers() {
      await triggers?.republishAll();
      await configs?.republishAll();
    },
    reload: (material) => transport.reload?.(material),
    async close() {
      unsubscribe?.();
      offRevision?.();
      offMove?.();
      offRecovered?.();
      await transport.close();
      await handler.drain();
    },
  };
}
