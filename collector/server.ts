import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { websocket } from "hono/bun";
import { OptionError, type OptionValues } from "../src/config/options.ts";
import { createLogger, isLogLevel, type Logger } from "../src/log/logger.ts";
import { Telemetry } from "../src/telemetry/registry.ts";
import { createAlerting } from "./alerts/start.ts";
import { InventoryEvents } from "./events/inventory-events.ts";
import { PointsBus } from "./events/points-bus.ts";
import { createForecasting } from "./forecast/start.ts";
import { createAlertsApp } from "./http/alerts/app.ts";
import { createDataminingApp } from "./http/datamining/app.ts";
import { createInventoryApp } from "./http/inventory/app.ts";
import { createMetricsApp } from "./http/metrics/app.ts";
import { createRootApp, type ServiceApps } from "./http/root.ts";
import { startIngest } from "./ingest/ingest.ts";
import { openSqliteInventoryStore } from "./store/inventory/sqlite.ts";
import { createMetricsStore } from "./store/metrics/open.ts";
import { servePrometheus, storeSelfMetrics } from "./telemetry.ts";

/** Clients switch APIs on this; it must read as a plain version >= 0.16.0. */
export const VERSION = "0.16.0";
export const OUTPOST_VERSION = "0.1.0";

export interface Collector {
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:8080 */
  url: string;
  httpPort: number;
  /** Port of the embedded MQTT broker, when it runs. */
  mqttPort?: number;
  log: Logger;
  stop(): Promise<void>;
}

/** A taken HTTP port is the user's to fix: one clear line instead of a stack trace. */
function httpPortError(e: unknown, port: number): unknown {
  return (e as NodeJS.ErrnoException).code === "EADDRINUSE" ? new OptionError(`HTTP port ${port} is already in use: choose another with --http-port`) : e;
}

/** Something started with the collector that must be stopped with it, in reverse order. */
type Closer = () => Promise<void> | void;

/** Starts the collector: HTTP first (503 until ready), then storage, then MQTT ingest. */
export async function startCollector(values: OptionValues): Promise<Collector> {
  const level = String(values["log-level"] ?? "info");
  const log = createLogger(isLogLevel(level) ? level : "info", "collector");
  const dataDir = resolve(String(values["data-dir"] ?? "./data"));
  mkdirSync(dataDir, { recursive: true });
  const closers: Closer[] = [];
  let ready = false;
  const readiness = { ready: () => ready };
  const bus = new PointsBus((err) => log.error("points listener failed", { err: String(err) }));
  const synchronous = String(values.synchronous ?? "FULL").toUpperCase() === "NORMAL" ? "NORMAL" : "FULL";
  const defaultRetentionDays = Number(values["default-retention"] ?? 7);
  const metricsStore = createMetricsStore({ dataDir, synchronous, defaultRetentionDays, log: log.child("metrics-store") });
  const forecasting = createForecasting({ dataDir, bus, log: log.child("forecast"), points: metricsStore, synchronous });
  const inventoryStore = openSqliteInventoryStore(join(dataDir, "inventory.db"), { synchronous });
  closers.push(() => inventoryStore.close());
  const inventoryEvents = new InventoryEvents((err) => log.error("inventory listener failed", { err: String(err) }));
  const alerting = createAlerting({
    dataDir,
    bus,
    log: log.child("alerts"),
    synchronous,
    plugins: { email: { smtpHost: String(values["smtp-host"] ?? "localhost"), smtpPort: Number(values["smtp-port"] ?? 25) } },
  });

  const inventory = { store: inventoryStore, events: inventoryEvents };
  const services: ServiceApps = {
    metrics: createMetricsApp({ store: metricsStore, bus, version: VERSION, defaultRetentionDays }),
    datamining: createDataminingApp({ forecasting: forecasting.service }),
    inventory: createInventoryApp({ inventory, log }),
    alerts: createAlertsApp({ alerting: alerting.service, heartbeatMs: Number(values["watch-heartbeat"] ?? 10_000), version: VERSION }),
  };

  const telemetry = new Telemetry();
  const app = createRootApp(services, readiness, log, (root) => servePrometheus(root, telemetry));
  const httpPort = Number(values["http-port"] ?? 8080);
  const server = (() => {
    try {
      return Bun.serve({
        port: httpPort,
        hostname: String(values["http-host"] ?? "0.0.0.0"),
        fetch: app.fetch,
        // Upgrades requested by the services' websocket routes (inventory events).
        websocket,
        // Watch streams send heartbeats more often than this; it only reaps dead connections.
        idleTimeout: 120,
        maxRequestBodySize: 256 * 1024 * 1024,
      });
    } catch (e) {
      throw httpPortError(e, httpPort);
    }
  })();
  const host = server.hostname === "0.0.0.0" ? "127.0.0.1" : server.hostname;
  const url = `http://${host}:${server.port}`;
  log.info("HTTP listening", { url, dataDir });

  await metricsStore.open();
  closers.push(() => metricsStore.close());

  await forecasting.open();
  closers.push(() => forecasting.close());

  // before ingest, so that points arriving over MQTT already feed the engine
  await alerting.open();
  closers.push(() => alerting.close());

  let mqttPort: number | undefined;
  const ingest = await startIngest(values, { store: metricsStore, inventory, alerting: alerting.service, bus, telemetry, log }).catch(async (e) => {
    // e.g. the MQTT port is taken: release what is already open before failing.
    await server.stop(true);
    for (const close of closers.reverse()) await close();
    throw e;
  });
  if (ingest) {
    closers.push(() => ingest.close());
    mqttPort = ingest.mqttPort;
  }
  const selfTenant = String(values["self-metrics-tenant"] ?? "_outpost");
  closers.push(storeSelfMetrics(telemetry, metricsStore, selfTenant, Number(values["self-metrics-interval"] ?? 10_000), log));

  ready = true;
  log.info("collector ready");

  return {
    url,
    httpPort: server.port ?? 0,
    mqttPort,
    log,
    async stop() {
      ready = false;
      // Stop taking requests first, then close what was opened, newest first.
      await server.stop(true);
      for (const close of closers.reverse()) await close();
    },
  };
}
