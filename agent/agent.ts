import { hostname } from "node:os";
import { join } from "node:path";
import type { OptionValues } from "../src/config/options.ts";
import type { ProgramContext } from "../src/config/run-program.ts";
import { openSecretFiles, readSecretOption } from "../src/config/secret-option.ts";
import { ensureWritableDir } from "../src/config/writable-dir.ts";
import { stopServer } from "../src/http/serve.ts";
import { hostPort } from "../src/net/listen.ts";
import { createLogger, isLogLevel, type Logger } from "../src/log/logger.ts";
import type { MetricWrite } from "../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../src/protocol/cbor.ts";
import { decodeInventoryAck, messageKind } from "../src/protocol/inventory-messages.ts";
import { encodeStatus } from "../src/protocol/control-messages.ts";
import { ProtocolError } from "../src/protocol/envelope.ts";
import { agentClientId, buildTopic } from "../src/protocol/topics.ts";
import { parseBrokerUrl } from "../src/protocol/broker-url.ts";
import { chooseBroker } from "./forward/broker-choice.ts";
import { openDatabase } from "../src/sqlite/open.ts";
import { registerProcessMetrics } from "../src/telemetry/process.ts";
import { telemetryWrites } from "../src/telemetry/registry.ts";
import { PointBuffer } from "./buffer/point-buffer.ts";
import { Forwarder } from "./forward/forwarder.ts";
import { splitListen, validateAgentOptions } from "./config.ts";
import { watchAcks } from "./forward/ack-watch.ts";
import { MqttLink } from "./forward/mqtt-link.ts";
import { tlsFilesLoader } from "./forward/tls-files.ts";
import { SendPlanner } from "./forward/send-planner.ts";
import { type HostMonitoring, startHostMonitoring } from "./host-monitoring.ts";
import { type LocalAlerting, startLocalAlerting } from "./local-alerting.ts";
import { createAgentApp, type OnSiteServing } from "./http/server-app.ts";
import { onSiteStatus } from "./http/on-site/status.ts";
import { Intake } from "./intake.ts";
import { type Inputs, startInputs } from "./inputs/inputs.ts";
import { DefinitionLedger } from "./inputs/series-output.ts";
import type { SeriesDefinition } from "../src/protocol/definitions-chunk.ts";
import { STALE_NAN } from "../src/prometheus/staleness.ts";
import { AgentStorage } from "./storage.ts";
import { historyConfig } from "../src/agent-config/history.ts";
import { OUTPOST_VERSION } from "../src/config/version.ts";
import { LocalHistory } from "./history/local-history.ts";
import { createAgentTelemetry, registerForwardingGauges } from "./telemetry.ts";
import { startLocalServer } from "./http/local-server.ts";
import { GarbageBudget } from "../src/runtime/garbage-budget.ts";
import { openAgentFleet } from "./fleet/agent-fleet.ts";
import { registerLiveParts } from "./live-parts.ts";
import { startHousekeeping } from "./housekeeping.ts";
import { agentUpgrades } from "./upgrade/agent-upgrades.ts";
import { startFromInstalled } from "./upgrade/launcher.ts";
import { startCodePageTrim } from "../src/runtime/code-pages.ts";

export interface Agent {
  tenant: string;
  feed: string;
  /** Base URL of the local HTTP server, when listening. */
  url?: string;
  log: Logger;
  stop(): Promise<void>;
}

/**
 * Points taken in between two full collections: about one large scrape (10,000 series), so a
 * scraping agent's garbage is collected every scrape interval or so, and an agent with only
 * host metrics collects every quarter of an hour (docs/inputs.md, "Memory").
 */
const GARBAGE_POINTS = 10_000;

/** Points older than this when they are sent count as backlog (replayed at --replay-rate). */
export function freshAgeMs(intervalMs: number): number {
  return Math.max(10_000, 2 * intervalMs);
}

/** Starts the agent: buffer first (so nothing is accepted that cannot be kept), then broker link, then HTTP. */
export async function startAgent(values: OptionValues, ctx?: ProgramContext): Promise<Agent> {
  validateAgentOptions(values);
  const tenant = String(values.tenant).trim();
  const feed = String(values.feed ?? hostname()).trim();
  const level = String(values["log-level"] ?? "info");
  const log = (ctx?.log ?? createLogger(isLogLevel(level) ? level : "info")).child("agent");
  const prefix = String(values["topic-prefix"] ?? "svc");
  const interval = Number(values.interval ?? 10_000);
  const batchPoints = Number(values["batch-points"] ?? 5000);
  // Secrets first: a file others can read stops the start before anything else is said.
  const password = readSecretOption(values, "password");
  const apiToken = readSecretOption(values, "api-token");
  for (const w of openSecretFiles(values, ["password", "api-token"])) log.warn(`${w}; used because of --allow-open-secret-files: other users can read it`);
  const brokerUrl = chooseBroker(values, ctx?.origin, log);
  const tls = tlsFilesLoader(values, parseBrokerUrl(brokerUrl).tls);
  const listen = String(values.listen ?? "127.0.0.1:8181").trim();
  const listenAt = listen === "" ? undefined : splitListen(listen);
  const sync = String(values.synchronous ?? "FULL").toUpperCase() === "NORMAL" ? "NORMAL" : "FULL";

  const { telemetry, counters } = createAgentTelemetry();
  // Sampled every 2 s: an idle agent should wake up as rarely as it can.
  const processMetrics = registerProcessMetrics(telemetry, { lagEveryMs: 2000 });
  const enc = createEncoder();
  const dec = createDecoder();
  const dataDir = ensureWritableDir(String(values["data-dir"] ?? "./agent-data"), "--data-dir", log);
  // Before anything is opened: the binary a rollout installed takes over from here (docs/fleet.md).
  startFromInstalled(dataDir, log);
  // Identity and the remote configuration last run, before anything starts from the options.
  const fleet = openAgentFleet({ values, tenant, feed, dataDir, ctx, log });
  values = fleet.values;
  const instance = fleet.identity.instance;
  // A queue (appended, read once, deleted): a small page cache serves it, rows read back just
  // after they were written come from the system's file cache; 512 KiB rather than 2 MiB saved
  // a scraping agent 2–3 MB of RSS at no measurable CPU, 256 KiB about 0.3 MB more (docs/inputs.md, "Memory").
  const db = openDatabase(join(dataDir, "buffer.db"), { synchronous: sync, cacheKiB: 256 });
  const storage = new AgentStorage(dataDir, Number(values["disk-reserve"] ?? 8 * 1024 ** 2), log.child("storage"));
  storage.register("buffer", db);
  storage.instrument(telemetry);
  let forwarder: Forwarder | undefined;
  let host: HostMonitoring | undefined;
  let local: LocalAlerting | undefined;
  let presence: ReturnType<typeof onSiteStatus> | undefined;
  // Which series definitions the buffer holds; forgotten whenever points may leave it uncommitted.
  const ledger = new DefinitionLedger();
  const buffer = new PointBuffer(
    db,
    { tenant, feed },
    {
      maxBytes: Number(values["buffer-max-bytes"] ?? 256 * 1024 ** 2),
      maxAgeMs: Number(values["buffer-max-age"] ?? 86_400_000),
      chunkPoints: batchPoints,
      historyMs: historyConfig(values).windowMs,
    },
    enc,
    {
      appended: () => forwarder?.pump(),
      dropped: (reason, points) => {
        ledger.forget();
        (reason === "age" ? counters.droppedAge : counters.droppedSize).inc(points);
        log.warn("buffer limit reached: dropped the oldest points", { reason, points });
      },
      writeFailed: storage.failed("buffer"),
      space: storage.space("buffer"),
      // While storage is in trouble, acknowledged points are deleted, not kept.
      keepAcked: () => storage.health.failing === undefined,
    },
  );

  const topic = (kind: "data" | "ack" | "status" | "inventory" | "events" | "triggers" | "config" | "config-status" | "upgrade") => buildTopic(prefix, { tenant, feed, kind });
  // Stops everything the agent started; set once it all runs (an upgrade's hand-over stops it too).
  let stopAgent = async () => {};
  const upgrades = agentUpgrades({
    ...{ values, dataDir, brokerUrl, password, dec, log },
    reported: () => void (link.ready && link.publish(topic("status"), status("online").payload, true).catch(() => undefined)),
    stopAgent: () => stopAgent(),
  });
  const status = (state: "online" | "offline", at = Date.now()) => ({
    topic: topic("status"),
    payload: encodeStatus(enc, {
      state,
      session: buffer.session,
      at,
      ...fleet.statusFields(state, buffer.session, at),
      version: OUTPOST_VERSION,
      arch: process.arch,
      upgrade: upgrades.upgrader.report(),
    }),
  });
  // The ack topic carries the acks of points, of fired alerts and of the inventory, and claim answers.
  const routeAck = (payload: Uint8Array) => {
    const kind = messageKind(dec, payload);
    if (kind === "events-ack") return local?.onAck(payload);
    if (kind === "claim") return claims?.gate.onMessage(payload);
    if (kind !== "inventory-ack") return forwarder?.onAck(payload);
    try {
      const ack = decodeInventoryAck(dec, payload);
      // Another agent's on the same feed (a cloned device).
      if (ack.instance === undefined || ack.instance === instance) host?.inventory?.onAck(ack);
    } catch (e) {
      log.warn("ignoring invalid inventory ack", { err: e instanceof ProtocolError ? e.message : String(e) });
    }
  };
  const planner = new SendPlanner(buffer, { batchPoints, replayRate: Number(values["replay-rate"] ?? 5000), freshAgeMs: freshAgeMs(interval) });
  let claims: ReturnType<typeof fleet.attach> | undefined;
  const link = new MqttLink(
    {
      url: brokerUrl,
      // With the instance: another agent claiming the feed does not take this connection over.
      clientId: agentClientId(tenant, feed, instance),
      fallbackClientId: agentClientId(tenant, feed),
      username: values.username === undefined ? undefined : String(values.username),
      password,
      tls,
      will: status("offline"),
      online: () => status("online"),
      subscriptions: [topic("ack")],
      // Without them the agent only misses local triggers, remote configuration and upgrades; without acks nothing could be sent.
      optionalSubscriptions: [topic("triggers"), topic("config"), topic("upgrade")],
      reconnectMinMs: Number(values["reconnect-min"] ?? 1000),
      reconnectMaxMs: Number(values["reconnect-max"] ?? 30_000),
      log: log.child("link"),
    },
    {
      ready: () => {
        presence?.linkUp();
        forwarder?.linkReady();
        local?.linkReady();
        host?.inventory?.linkReady();
      },
      down: () => {
        presence?.linkDown();
        host?.inventory?.linkDown();
        claims?.remote.linkDown();
      },
      message: (t, payload) => {
        if (t === topic("triggers")) return local?.onTriggers(payload);
        if (t === topic("config")) return void claims?.remote.onMessage(payload);
        if (t === topic("upgrade")) return upgrades.upgrader.onOrder(payload);
        if (t === topic("ack")) routeAck(payload);
      },
    },
  );
  // Data, events and inventory wait while another identity holds the feed (docs/fleet.md).
  claims = fleet.attach({
    link,
    enc,
    dec,
    configStatusTopic: topic("config-status"),
    resumed: () => {
      forwarder?.linkReady();
      local?.linkReady();
      host?.inventory?.linkReady();
    },
    reclaim: () => {
      const s = status("online");
      link.publish(s.topic, s.payload, true).catch((e) => log.warn("could not claim the feed again; it will at the next connection", { err: (e as Error).message }));
    },
  });
  const sending = claims.gate.gated(link);
  // A batch the collector refused is dropped with any definitions it held: send them again.
  const pointsRejected = {
    inc(n?: number) {
      ledger.forget();
      counters.pointsRejected.inc(n);
    },
    get value() {
      return counters.pointsRejected.value;
    },
  };
  forwarder = new Forwarder(
    buffer,
    planner,
    sending,
    enc,
    dec,
    { dataTopic: topic("data"), window: Number(values.window ?? 8), ackTimeoutMs: Number(values["ack-timeout"] ?? 10_000), instance },
    { ...counters, pointsRejected },
    log.child("forward"),
  );
  const fw = forwarder;

  registerForwardingGauges(telemetry, { buffer, forwarder: fw, link });

  const intake = new Intake(
    buffer,
    { pastMs: Number(values["flag-past"] ?? 86_400_000), futureMs: Number(values["flag-future"] ?? 300_000) },
    { accepted: counters.accepted, clockSkew: counters.clockSkew },
    log.child("intake"),
  );

  local = await startLocalAlerting({
    values,
    tenant,
    feed,
    dataDir,
    synchronous: sync,
    eventsTopic: topic("events"),
    link: sending,
    instance,
    enc,
    dec,
    telemetry,
    storage,
    log,
  });
  const localAlerting = local;
  // Every accepted point, once buffered, is also evaluated by the local triggers that read it.
  // What points leave behind is collected every GARBAGE_POINTS points (src/runtime/garbage-budget.ts).
  const garbage = new GarbageBudget({ budget: GARBAGE_POINTS, minIntervalMs: 5000, release: true });
  const sink = {
    async accept(writes: MetricWrite[], definitions?: SeriesDefinition[]) {
      const r = await intake.accept(writes, definitions);
      localAlerting.onWrites(writes);
      garbage.spend(r.points);
      return r;
    },
  };

  let inputs: Inputs;
  try {
    inputs = await startInputs({ values, feed, ledger, sink: (writes, defs) => sink.accept(writes, defs), telemetry, log, staleMarker: STALE_NAN });
  } catch (e) {
    fw.close();
    await localAlerting.close();
    buffer.close();
    storage.close();
    processMetrics.stop();
    throw e;
  }
  // The local history's reads (docs/storage.md, "The agent's local history").
  const windowMs = buffer.history.windowMs;
  const reads =
    windowMs > 0
      ? { tenant, store: new LocalHistory(buffer.database, dec, tenant, windowMs / 86_400_000), retentionDays: windowMs / 86_400_000, version: OUTPOST_VERSION, log: log.child("history") }
      : undefined;
  // The on-site view: the console's metrics page over those reads (docs/console.md, "On site").
  presence = onSiteStatus({
    tenant,
    feed,
    brokerUrl,
    version: OUTPOST_VERSION,
    connected: () => link.ready,
    lastAckAt: () => fw.lastAckAt,
    backlog: () => ({ points: buffer.depth.points, bytes: buffer.depth.bytes, oldest: buffer.oldestBufferedAt() }),
    history: () => ({ windowMs, points: buffer.history.depth.points, bytes: buffer.history.depth.bytes }),
    dropped: () => counters.droppedSize.value + counters.droppedAge.value + counters.pointsRejected.value,
  });
  const onSite: OnSiteServing | undefined = reads && values.console !== false ? { tenant, feed, windowMs, version: OUTPOST_VERSION, status: presence.status } : undefined;
  // The HTTP server before the broker link and host metrics: a taken port fails the start cleanly.
  let server: ReturnType<typeof Bun.serve> | undefined;
  if (listenAt) {
    try {
      server = startLocalServer({ listen, at: listenAt, values, apiToken, tenant, log }, (guards) => createAgentApp(tenant, sink, telemetry, log, { ...guards, inputs: inputs.routes(tenant), reads, onSite }).fetch);
    } catch (e) {
      await inputs.stop();
      fw.close();
      await localAlerting.close();
      buffer.close();
      storage.close();
      processMetrics.stop();
      throw e;
    }
  }
  const url = server ? `http://${hostPort(server.hostname ?? "", server.port ?? 0)}` : undefined;

  host = startHostMonitoring({
    values,
    feed,
    accept: (writes) => sink.accept(writes),
    publishInventory: (payload) => sending.publish(topic("inventory"), payload),
    instance,
    enc,
    retryMs: Number(values["ack-timeout"] ?? 10_000),
    log,
    inputs: () => inputs.inventory(),
  });
  const hostMonitoring = host;

  link.start();
  upgrades.watch(() => link.ready, () => fw.lastAckAt);
  const ackWatch = watchAcks({
    waitingSince: () => fw.waitingSince(),
    lastAckAt: () => fw.lastAckAt,
    inFlightBatches: () => fw.inFlightBatches,
    linkReady: () => link.ready,
    warnAfterMs: Number(values["ack-warn-after"] ?? 60_000),
    url: brokerUrl,
    topicPrefix: prefix,
    log: log.child("link"),
  });

  registerLiveParts(fleet.reload, { inputs, host: hostMonitoring, buffer, local: localAlerting, link });

  const tick = startHousekeeping(interval, {
    ...{ storage, buffer, dec, forwarder: fw, planner, link, counters, log },
    local: localAlerting,
    host: hostMonitoring,
    ownMetrics: () => sink.accept(telemetryWrites(telemetry, `${feed}:`, Date.now())),
  });

  log.info("agent started", { tenant, feed, session: buffer.session, bufferedPoints: buffer.depth.points, listen: url, broker: brokerUrl });
  // Start-up's code is not run again: its pages out of the resident size (src/runtime/code-pages.ts).
  const codeTrim = startCodePageTrim(log);

  let stopped = false;
  stopAgent = async () => {
    if (stopped) return;
    stopped = true;
    tick.stop();
    codeTrim();
    garbage.stop();
    processMetrics.stop();
    ackWatch.stop();
    hostMonitoring.stop();
    await inputs.stop();
    // Writes in progress finish (their points are buffered) before the buffer closes.
    if (server) await stopServer(server, 2000);
    fw.close();
    await link.stop(status("offline"));
    await localAlerting.close();
    buffer.close();
    storage.close();
    log.info("agent stopped", { bufferedPoints: buffer.depth.points });
  };
  return { tenant, feed, url, log, stop: () => upgrades.stop(stopAgent) };
}
