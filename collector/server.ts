import { join } from "node:path";
import type { OptionValues } from "../src/config/options.ts";
import type { ProgramContext } from "../src/config/run-program.ts";
import { invocation } from "../src/config/invocation.ts";
import { OUTPOST_VERSION } from "../src/config/version.ts";
import { openSecretFiles, readSecretOption } from "../src/config/secret-option.ts";
import { ensureWritableDir } from "../src/config/writable-dir.ts";
import { BodyBudget, bodyPaceOf, limitBodies } from "../src/http/body-limit.ts";
import { allowedHostPredicate } from "../src/http/host-check.ts";
import { MemoryGovernor } from "../src/http/memory-governor.ts";
import { createLogger, isLogLevel, type Logger } from "../src/log/logger.ts";
import { StorageHealth } from "../src/sqlite/storage-health.ts";
import { Telemetry } from "../src/telemetry/registry.ts";
import { createAlerting } from "./alerts/start.ts";
import { defaultRetentionDays, rollupTiersOf, validateCollectorOptions } from "./config.ts";
import { registerRollupMetrics } from "./rollup-telemetry.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { InventoryEvents } from "./events/inventory-events.ts";
import { PointsBus } from "./events/points-bus.ts";
import { createForecasting } from "./forecast/start.ts";
import { createAlertsApp } from "./http/alerts/app.ts";
import { createConsoleApp } from "./http/console/app.ts";
import { createDataminingApp } from "./http/datamining/app.ts";
import { createFleetApp } from "./http/fleet/app.ts";
import { startUpgrades } from "./fleet/start.ts";
import { createInfluxApp, INFLUX_PREFIXES } from "./http/influx/app.ts";
import { createOtlpApp, OTLP_PREFIXES } from "./http/otlp/app.ts";
import { createInventoryApp } from "./http/inventory/app.ts";
import { createMetricsApp } from "./http/metrics/app.ts";
import { createPrometheusApp, PROMETHEUS_PREFIXES } from "./http/prometheus/app.ts";
import { RemoteWriteColumns } from "./metrics/foreign-writes.ts";
import { warmRemoteWrite } from "./metrics/remote-write-warm.ts";
import { createRootApp, type ServiceApps } from "./http/root.ts";
import { readinessCheck } from "./readiness.ts";
import { startHttpServer } from "./http-server.ts";
import { SHARE_GROUP } from "./ingest/external-broker.ts";
import { announceToLocalAgents } from "./ingest/local-agents.ts";
import { startIngest } from "./ingest/ingest.ts";
import { startLeases } from "./cluster/leases.ts";
import { InventorySync } from "./cluster/inventory-sync.ts";
import { nodeNameOf } from "./cluster/node-name.ts";
import { readSecurity, reloadSecurity } from "./security.ts";
import { startSelfMonitoring } from "./self-monitoring.ts";
import { PostgresAlertsStore } from "./store/alerts/postgres.ts";
import { PostgresForecastStore } from "./store/forecast/postgres.ts";
import { PostgresFleetStore } from "./store/fleet/postgres.ts";
import { SqliteFleetStore } from "./store/fleet/sqlite.ts";
import { createFleetServices } from "./fleet/services.ts";
import { openPostgresInventoryStore } from "./store/inventory/postgres.ts";
import { openSqliteInventoryStore } from "./store/inventory/sqlite.ts";
import { openPostgresStorage, type PostgresStorage } from "./store/postgres.ts";
import { createMetricsStore } from "./store/metrics/open.ts";
import { JSON_OFFLOAD_MIN_CHARS, JsonOffload } from "./metrics/json-offload.ts";
import { PromqlOffload } from "./metrics/promql-offload.ts";
import { RollupOffload } from "./metrics/rollup-offload.ts";
import { selfMetricNames, servePrometheus, storeSelfMetrics } from "./telemetry.ts";
import { startCodePageTrim } from "../src/runtime/code-pages.ts";

/**
 * Clients switch APIs on this: the Hawkular Metrics generation the interfaces are a superset
 * of (0.28.2, the version hawkular-client-ruby's recordings were made with; the Grafana
 * datasource uses its full mode from 0.24 on, the Python client its non-legacy paths from 0.16).
 */
export const VERSION = "0.28.2";

export interface Collector {
  /** Base URL of the HTTP server, e.g. http://127.0.0.1:8080 */
  url: string;
  httpPort: number;
  /** Port of the embedded MQTT broker, when it runs. */
  mqttPort?: number;
  /** Port of the embedded broker's MQTT over TLS listener, when it runs. */
  mqttsPort?: number;
  log: Logger;
  /** Re-reads the auth file and the certificates (SIGHUP, after the options). */
  reload(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Browser origins allowed by CORS: --cors-origins when given, otherwise none: the collector
 * answers only its own pages (same origin). Without an auth file any page a browser on the
 * machine opens could otherwise read and change every tenant's data (docs/security.md, "CORS").
 */
export function corsOrigins(values: OptionValues): string[] {
  const given = values["cors-origins"];
  return Array.isArray(given) ? given : [];
}

/** Host names the HTTP interfaces answer beyond the built-in ones (src/http/host-check.ts). */
export function allowedHosts(values: OptionValues): string[] {
  const given = Array.isArray(values["allowed-hosts"]) ? (values["allowed-hosts"] as string[]) : [];
  const external = values["external-url"] === undefined ? undefined : String(values["external-url"]).trim();
  let externalHost: string[] = [];
  try {
    if (external) externalHost = [new URL(external).hostname];
  } catch {}
  return [...given, ...externalHost];
}

/** Something started with the collector that must be stopped with it, in reverse order. */
type Closer = () => Promise<void> | void;

/** Starts the collector: HTTP first (503 until ready), then storage, then MQTT ingest. */
export async function startCollector(values: OptionValues, ctx?: ProgramContext): Promise<Collector> {
  validateCollectorOptions(values);
  const level = String(values["log-level"] ?? "info");
  const log = (ctx?.log ?? createLogger(isLogLevel(level) ? level : "info")).child("collector");
  for (const w of openSecretFiles(values, ["database-url", "broker-password"])) log.warn(`${w}; used because of --allow-open-secret-files: other users can read it`);
  // Credentials, certificates and listening addresses first: a mistake there stops the start.
  const security = readSecurity(values, log);
  const dataDir = ensureWritableDir(String(values["data-dir"] ?? "./data"), "--data-dir", log);
  const lock = lockDataDir(dataDir);
  const closers: Closer[] = [lock.release];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    return await startServices(values, ctx, { log, security, dataDir, closers, closeAll });
  } catch (e) {
    // e.g. a taken port or a database of a newer version: release what is already open.
    await closeAll();
    throw e;
  }
}

interface Setup {
  log: Logger;
  security: ReturnType<typeof readSecurity>;
  dataDir: string;
  closers: Closer[];
  closeAll(): Promise<void>;
}

async function startServices(values: OptionValues, ctx: ProgramContext | undefined, { log, security, dataDir, closers, closeAll }: Setup): Promise<Collector> {
  let ready = false;
  const readiness = { ready: () => ready };
  const bus = new PointsBus((err) => log.error("points listener failed", { err: String(err) }));
  const synchronous = String(values.synchronous ?? "FULL").toUpperCase() === "NORMAL" ? "NORMAL" : "FULL";
  const retentionDays = defaultRetentionDays(values);
  // One view of the storage for every store: a full disk is logged once and probed until it passes.
  const health = new StorageHealth({ log: log.child("storage") });
  closers.push(() => health.close());
  const pg = await openSharedStorage(values, log, dataDir);
  if (pg) closers.push(() => pg.close());
  // Work done once among the collectors of one database (docs/scale-out.md).
  // Its name among them: lease owner, self-metrics series (--node-name).
  const nodeName = pg ? nodeNameOf(values) : undefined;
  const keeper = pg && nodeName !== undefined ? await startLeases(pg.sql, log.child("leases"), nodeName) : undefined;
  if (keeper) closers.push(() => keeper.stop());
  // Rounding of gauge and counter values at ingest (--value-precision), for every way points come in.
  const valuePrecision = values["value-precision"] === undefined ? undefined : Number(values["value-precision"]);
  const chunkCacheBytes = Number(values["chunk-cache"] ?? 64 * 1024 ** 2);
  // Remote write's series cache, shared with the Prometheus app and filled once the store is open.
  const remoteWrite = new RemoteWriteColumns();
  const memory = new MemoryGovernor({ targetBytes: Number(values["memory-target"] ?? 200 * 1024 ** 2), limitBytes: Number(values["memory-limit"] ?? 0) });
  // Closed after the store (closers run in reverse): the store's last window may still ask it.
  const rollupOffload = pg || values["rollup-worker"] === false ? undefined : new RollupOffload({ log: log.child("rollups") });
  if (rollupOffload) closers.push(() => rollupOffload.close());
  const metricsStore = createMetricsStore({
    ...{ dataDir, synchronous, defaultRetentionDays: retentionDays, chunkCacheBytes, sealOnClose: values["seal-on-stop"] === true, log: log.child("metrics-store"), health, sql: pg?.sql, ownership: keeper },
    rollupTiers: rollupTiersOf(values),
    rollupCompute: rollupOffload,
    // A sealing round's garbage counts like request bodies' toward the next collection.
    released: (bytes) => memory.garbage(bytes),
  });
  closers.push(() => metricsStore.close());
  const forecastLog = log.child("forecast");
  const forecastStore = pg && new PostgresForecastStore({ sql: pg.sql, log: forecastLog, health });
  const forecasting = createForecasting({
    ...{ dataDir, bus, log: forecastLog, points: metricsStore, synchronous, health, store: forecastStore },
    cluster: keeper ? { ownership: keeper } : undefined,
  });
  closers.push(() => forecasting.close());
  const inventoryStore = pg ? openPostgresInventoryStore(pg.sql, { health }) : openSqliteInventoryStore(join(dataDir, "inventory.db"), { synchronous, health });
  closers.push(() => inventoryStore.close());
  const inventoryEvents = new InventoryEvents((err) => log.error("inventory listener failed", { err: String(err) }));
  if (pg && keeper) {
    // Websocket clients of every collector see the inventory changes made through any.
    const inventorySync = new InventorySync({ sql: pg.sql, owner: keeper.owner, events: inventoryEvents, log: log.child("inventory-sync") });
    await inventorySync.start();
    closers.push(() => inventorySync.close());
  }
  const alertsLog = log.child("alerts");
  const alerting = createAlerting({
    dataDir,
    bus,
    log: alertsLog,
    store: pg && new PostgresAlertsStore({ sql: pg.sql, log: alertsLog, health, fence: keeper && ((tx, lease) => keeper.fenceGeneration(tx, lease)) }),
    cluster: pg && keeper ? { sql: pg.sql, keeper } : undefined,
    synchronous,
    health,
    plugins: { email: { smtpHost: String(values["smtp-host"] ?? "localhost"), smtpPort: Number(values["smtp-port"] ?? 25) } },
  });
  closers.push(() => alerting.close());

  const fleetStore = pg ? new PostgresFleetStore({ sql: pg.sql, health }) : new SqliteFleetStore({ dataDir, synchronous, log: log.child("fleet"), health });
  closers.push(() => fleetStore.close());
  const fleet = createFleetServices(fleetStore, log.child("fleet"));
  const upgrades = startUpgrades({ values, dataDir, sql: pg?.sql, synchronous, health, log });
  closers.push(() => upgrades.close());

  const inventory = { store: inventoryStore, events: inventoryEvents };
  // Closed after the HTTP server stops (closers run in reverse): requests in flight fall back to the main thread.
  const workerMin = Number(values["ingest-worker-min-body"] ?? JSON_OFFLOAD_MIN_CHARS);
  const jsonOffload = workerMin > 0 ? new JsonOffload({ log: log.child("ingest"), minChars: workerMin }) : undefined;
  if (jsonOffload) closers.push(() => jsonOffload.close());
  const services: ServiceApps = {
    metrics: createMetricsApp({ store: metricsStore, bus, valuePrecision, version: VERSION, defaultRetentionDays: retentionDays, jsonOffload }),
    datamining: createDataminingApp({ forecasting: forecasting.service }),
    inventory: createInventoryApp({ inventory, log }),
    alerts: createAlertsApp({ alerting: alerting.service, heartbeatMs: Number(values["watch-heartbeat"] ?? 10_000), version: VERSION }),
    fleet: createFleetApp({ metrics: metricsStore, inventory: inventoryStore, fleet, upgrades }),
  };

  const telemetry = new Telemetry();
  health.instrument(telemetry, "outpost_collector");
  if (keeper) telemetry.gauge("outpost_collector_leases_held", "work partitions this collector holds the lease of (docs/scale-out.md)", () => keeper.leases().length);
  const monitoring = startSelfMonitoring({ telemetry, bus, dataDir, metricsMemory: metricsStore.memory && (() => metricsStore.memory!()) });
  registerRollupMetrics(telemetry, () => metricsStore.rollups?.stats());
  closers.push(monitoring.stop);
  const maxBody = Number(values["max-request-body"] ?? 32 * 1024 ** 2);
  const bodies = { maxBytes: maxBody, budget: new BodyBudget(4 * maxBody), option: "--max-request-body", memory, pace: bodyPaceOf(values) };
  telemetry.counterFrom("outpost_collector_memory_collections_total", "garbage collections run because resident memory was above --memory-target", () => memory.collections);
  telemetry.counterFrom("outpost_collector_memory_young_collections_total", "young-generation garbage collections run while input came (at most one per 100 ms; none with --memory-target 0)", () => memory.youngCollections);
  if (jsonOffload) {
    telemetry.counterFrom("outpost_collector_ingest_worker_bodies_total", "JSON write bodies parsed into columns by the ingest worker thread (--ingest-worker-min-body)", () => jsonOffload.parsed);
    telemetry.counterFrom("outpost_collector_ingest_worker_lost_total", "ingest worker threads that failed, died or hung (their bodies were parsed on the main thread)", () => jsonOffload.lost);
  }
  if (rollupOffload) {
    telemetry.counterFrom("outpost_collector_rollup_worker_requests_total", "requests of the rollup tiers' steps answered by the roller's worker thread (--rollup-worker)", () => rollupOffload.answered);
    telemetry.counterFrom("outpost_collector_rollup_worker_lost_total", "roller worker threads that failed, died or hung (their steps were computed on the main thread)", () => rollupOffload.lost);
  }
  telemetry.gauge("outpost_collector_remote_write_cached_series", "series remote write knows by their label bytes (filled from the store at start, then as series are sent)", () => remoteWrite.cache.size);
  telemetry.counterFrom("outpost_collector_memory_refusals_total", "HTTP request bodies refused with 503 because resident memory was above --memory-limit", () => memory.refused);
  telemetry.gauge("outpost_collector_request_body_bytes", "bytes of HTTP request bodies being received or handled now (at most 4 × --max-request-body)", () => bodies.budget.inUse);
  const selfTenant = String(values["self-metrics-tenant"] ?? "_outpost");
  // How an agent reaches this collector's broker, once it listens (printed, and shown by the console).
  let agentCommand: string | undefined;
  const promqlOffload = new PromqlOffload({ log: log.child("promql") });
  closers.push(() => promqlOffload.close());
  const consoleApp =
    values.console === false
      ? undefined
      : createConsoleApp({
          gate: security.gate,
          base: security.base,
          tenants: async () => (await metricsStore.listTenants()).map((t) => t.id).sort(),
          selfTenant,
          agentCommand: () => agentCommand,
          version: OUTPOST_VERSION,
          log: log.child("console"),
        });
  const app = createRootApp(services, readiness, log, {
    cors: { origins: corsOrigins(values), allowHeaders: (values["cors-allow-headers"] as string[] | undefined) ?? [] },
    allowedHost: allowedHostPredicate(allowedHosts(values)),
    extra: (root) => {
      root.use("*", limitBodies(bodies));
      servePrometheus(root, telemetry, selfTenant);
    },
    mounts: [
      { prefixes: PROMETHEUS_PREFIXES, app: createPrometheusApp({ store: metricsStore, bus, valuePrecision, version: OUTPOST_VERSION, offload: promqlOffload, memory, remoteWrite }, log.child("prometheus")) },
      { prefixes: INFLUX_PREFIXES, app: createInfluxApp({ store: metricsStore, bus, valuePrecision }, log.child("influx")) },
      { prefixes: OTLP_PREFIXES, app: createOtlpApp({ store: metricsStore, bus, valuePrecision }, log.child("otlp")) },
      ...(consoleApp ? [{ prefixes: [""], app: consoleApp }] : []),
    ],
    gate: security.gate,
    base: security.base,
    observe: monitoring.observeHttp,
    readyCheck: readinessCheck({ started: () => ready, health, sql: pg?.sql }),
  });
  if (security.gate) {
    const gate = security.gate;
    const failures = telemetry.counter("outpost_collector_auth_failures_total", "failed authentications (HTTP and MQTT), including throttled ones");
    gate.onFailure = () => failures.inc();
    telemetry.gauge("outpost_collector_auth_throttled_addresses", "addresses refused for now after repeated failed authentications", () => gate.throttle?.blockedCount() ?? 0);
  }
  const server = startHttpServer({
    host: String(values["http-host"] ?? "127.0.0.1"),
    port: Number(values["http-port"] ?? 8080),
    fetch: app.fetch,
    tls: security.tls,
    fallbackToFreePort: ctx?.origin["http-port"] === "default",
    log,
  });
  closers.push(() => server.stop());
  upgrades.setDownloadPlace({ httpPort: server.port, tls: security.tls !== undefined });
  log.info("data folder", { dataDir });

  await metricsStore.open();
  // Before the first request: a restarted collector's backlog finds its series known.
  await warmRemoteWrite(remoteWrite, metricsStore, log.child("prometheus"));
  memory.collectNow();
  await forecasting.open();
  // before ingest, so that points arriving over MQTT already feed the engine
  await alerting.open();

  const ingest = await startIngest(values, {
    store: metricsStore,
    inventory,
    alerting: alerting.service,
    fleet,
    bus,
    valuePrecision,
    telemetry,
    log,
    health,
    gate: security.gate,
    tls: security.tls,
    brokerPassword: security.brokerPassword,
    brokerCa: security.brokerCa,
    // Collectors on one database share the agents' messages (docs/scale-out.md).
    shareGroup: pg ? SHARE_GROUP : undefined,
    portFallback: ctx?.origin["mqtt-port"] === "default",
    memory,
    upgrades,
  });
  if (ingest) {
    closers.push(() => ingest.close());
    ctx?.reload.register({ what: "local trigger and configuration push", always: true, apply: () => ingest.repushTriggers() });
  }
  closers.push(storeSelfMetrics(telemetry, metricsStore, selfTenant, Number(values["self-metrics-interval"] ?? 10_000), log, selfMetricNames(nodeName)));

  ready = true;
  log.info("collector ready", { version: OUTPOST_VERSION });
  // Start-up's code is not run again: its pages out of the resident size (src/runtime/code-pages.ts).
  closers.push(startCodePageTrim(log));
  if (ingest?.plainUrl) {
    // With an auth file an agent logs in: its credential is made with `auth add --feed TENANT/FEED` (docs/security.md).
    const login = security.gate ? " --feed web-1 --username web-1 --password-file web-1.pw" : "";
    agentCommand = `${invocation("agent", "collector")} --broker ${ingest.plainUrl}${login}`;
    closers.push(announceToLocalAgents(ingest.plainUrl, server.url, agentCommand, log));
  }

  return {
    url: server.url,
    httpPort: server.port,
    mqttPort: ingest?.mqttPort,
    mqttsPort: ingest?.mqttsPort,
    log,
    async reload() {
      const { tls } = reloadSecurity(security, log);
      if (tls) server.reloadTls(tls);
      ingest?.reload(tls);
    },
    async stop() {
      ready = false;
      // Stop taking requests (those in progress finish), then close what was opened, newest first.
      await server.stop(2000);
      await closeAll();
      log.info("collector stopped");
    },
  };
}

/** With --database-url: the PostgreSQL pool of every store (docs/scale-out.md), migrated. */
async function openSharedStorage(values: OptionValues, log: Logger, dataDir: string): Promise<PostgresStorage | undefined> {
  const url = readSecretOption(values, "database-url");
  if (url === undefined) return undefined;
  const pg = await openPostgresStorage(url, log.child("postgres"));
  log.info("metrics, alerts, inventory, forecasting and agent releases are stored in PostgreSQL", { database: pg.where, dataDir });
  return pg;
}
