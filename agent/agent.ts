import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { OptionError, type OptionValues } from "../src/config/options.ts";
import { createLogger, isLogLevel, type Logger } from "../src/log/logger.ts";
import type { MetricWrite } from "../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../src/protocol/cbor.ts";
import { decodeInventoryAck, messageKind } from "../src/protocol/inventory-messages.ts";
import { encodeStatus } from "../src/protocol/control-messages.ts";
import { ProtocolError } from "../src/protocol/envelope.ts";
import { buildTopic } from "../src/protocol/topics.ts";
import { openDatabase } from "../src/sqlite/open.ts";
import { telemetryWrites } from "../src/telemetry/registry.ts";
import { PointBuffer } from "./buffer/point-buffer.ts";
import { Forwarder } from "./forward/forwarder.ts";
import { parseBrokerUrl } from "./forward/mqtt/connection.ts";
import { MqttLink } from "./forward/mqtt-link.ts";
import { SendPlanner } from "./forward/send-planner.ts";
import { type HostMonitoring, startHostMonitoring } from "./host-monitoring.ts";
import { type LocalAlerting, startLocalAlerting } from "./local-alerting.ts";
import { createAgentApp } from "./http/server-app.ts";
import { Intake } from "./intake.ts";
import { createAgentTelemetry } from "./telemetry.ts";

export interface Agent {
  tenant: string;
  feed: string;
  /** Base URL of the local HTTP server, when listening. */
  url?: string;
  log: Logger;
  stop(): Promise<void>;
}

function splitListen(listen: string): { hostname: string; port: number } {
  const i = listen.lastIndexOf(":");
  const port = Number(listen.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new OptionError(`--listen: "${listen}" is not host:port`);
  return { hostname: listen.slice(0, i).replace(/^\[|\]$/g, "") || "127.0.0.1", port };
}

/** Points older than this when they are sent count as backlog (replayed at --replay-rate). */
export function freshAgeMs(intervalMs: number): number {
  return Math.max(10_000, 2 * intervalMs);
}

/** Starts the agent: buffer first (so nothing is accepted that cannot be kept), then broker link, then HTTP. */
export async function startAgent(values: OptionValues): Promise<Agent> {
  const tenant = values.tenant === undefined ? "" : String(values.tenant).trim();
  if (tenant === "") throw new OptionError("--tenant is required");
  const feed = String(values.feed ?? hostname()).trim();
  if (feed === "") throw new OptionError("--feed must not be empty");
  const level = String(values["log-level"] ?? "info");
  const log = createLogger(isLogLevel(level) ? level : "info", "agent");
  const prefix = String(values["topic-prefix"] ?? "svc");
  const interval = Number(values.interval ?? 10_000);
  const batchPoints = Number(values["batch-points"] ?? 5000);
  if (interval <= 0) throw new OptionError("--interval must be positive");
  if (batchPoints <= 0) throw new OptionError("--batch-points must be positive");
  const brokerUrl = String(values.broker ?? "mqtt://127.0.0.1:1883");
  try {
    parseBrokerUrl(brokerUrl);
  } catch (e) {
    throw new OptionError(`--broker: ${(e as Error).message}`);
  }
  const sync = String(values.synchronous ?? "FULL").toUpperCase();
  if (sync !== "FULL" && sync !== "NORMAL") throw new OptionError("--synchronous must be FULL or NORMAL");

  const { telemetry, counters } = createAgentTelemetry();
  const enc = createEncoder();
  const dec = createDecoder();
  const dataDir = resolve(String(values["data-dir"] ?? "./agent-data"));
  const db = openDatabase(join(dataDir, "buffer.db"), { synchronous: sync });
  let forwarder: Forwarder | undefined;
  let host: HostMonitoring | undefined;
  let local: LocalAlerting | undefined;
  const buffer = new PointBuffer(
    db,
    { tenant, feed },
    { maxBytes: Number(values["buffer-max-bytes"] ?? 256 * 1024 ** 2), maxAgeMs: Number(values["buffer-max-age"] ?? 86_400_000), chunkPoints: batchPoints },
    enc,
    {
      appended: () => forwarder?.pump(),
      dropped: (reason, points) => {
        (reason === "age" ? counters.droppedAge : counters.droppedSize).inc(points);
        log.warn("buffer limit reached: dropped the oldest points", { reason, points });
      },
    },
  );

  const topic = (kind: "data" | "ack" | "status" | "inventory" | "events" | "triggers") => buildTopic(prefix, { tenant, feed, kind });
  const status = (state: "online" | "offline", at = Date.now()) => ({ topic: topic("status"), payload: encodeStatus(enc, { state, session: buffer.session, at }) });
  // The ack topic carries the acks of points, of fired alerts and of the inventory.
  const routeAck = (payload: Uint8Array) => {
    const kind = messageKind(dec, payload);
    if (kind === "events-ack") return local?.onAck(payload);
    if (kind !== "inventory-ack") return forwarder?.onAck(payload);
    try {
      host?.inventory?.onAck(decodeInventoryAck(dec, payload));
    } catch (e) {
      log.warn("ignoring invalid inventory ack", { err: e instanceof ProtocolError ? e.message : String(e) });
    }
  };
  const planner = new SendPlanner(buffer, { batchPoints, replayRate: Number(values["replay-rate"] ?? 5000), freshAgeMs: freshAgeMs(interval) });
  const link = new MqttLink(
    {
      url: brokerUrl,
      clientId: `outpost-agent:${encodeURIComponent(tenant)}:${encodeURIComponent(feed)}`,
      username: values.username === undefined ? undefined : String(values.username),
      password: values.password === undefined ? undefined : String(values.password),
      will: status("offline"),
      online: () => status("online"),
      subscriptions: [topic("ack")],
      // Without it the agent only misses local triggers; without acks nothing could be sent.
      optionalSubscriptions: [topic("triggers")],
      reconnectMinMs: Number(values["reconnect-min"] ?? 1000),
      reconnectMaxMs: Number(values["reconnect-max"] ?? 30_000),
      log: log.child("link"),
    },
    {
      ready: () => {
        forwarder?.linkReady();
        local?.linkReady();
        host?.inventory?.linkReady();
      },
      down: () => host?.inventory?.linkDown(),
      message: (t, payload) => {
        if (t === topic("triggers")) return local?.onTriggers(payload);
        if (t === topic("ack")) routeAck(payload);
      },
    },
  );
  forwarder = new Forwarder(
    buffer,
    planner,
    link,
    enc,
    dec,
    { dataTopic: topic("data"), window: Number(values.window ?? 8), ackTimeoutMs: Number(values["ack-timeout"] ?? 10_000) },
    counters,
    log.child("forward"),
  );
  const fw = forwarder;

  telemetry.gauge("outpost_agent_buffer_points", "points in the buffer, sent or not, awaiting the collector's ack", () => buffer.depth.points);
  telemetry.gauge("outpost_agent_buffer_bytes", "bytes the buffered points count against --buffer-max-bytes", () => buffer.depth.bytes);
  telemetry.gauge("outpost_agent_buffer_file_bytes", "size of the buffer's database file", () => buffer.fileBytes());
  telemetry.gauge("outpost_agent_buffer_oldest_age_seconds", "how long the oldest buffered point has waited", () => {
    const at = buffer.oldestBufferedAt();
    return at === undefined ? 0 : Math.max(0, (Date.now() - at) / 1000);
  });
  telemetry.gauge("outpost_agent_batches_in_flight", "batches sent and awaiting the collector's ack", () => fw.inFlightBatches);
  telemetry.gauge("outpost_agent_broker_connected", "1 while connected to the broker", () => (link.ready ? 1 : 0));

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
    link,
    enc,
    dec,
    telemetry,
    log,
  });
  const localAlerting = local;
  // Every accepted point, once buffered, is also evaluated by the local triggers that read it.
  const sink = {
    async accept(writes: MetricWrite[]) {
      const r = await intake.accept(writes);
      localAlerting.onWrites(writes);
      return r;
    },
  };

  host = startHostMonitoring({
    values,
    feed,
    accept: (writes) => sink.accept(writes),
    publishInventory: (payload) => link.publish(topic("inventory"), payload),
    enc,
    retryMs: Number(values["ack-timeout"] ?? 10_000),
    log,
  });
  const hostMonitoring = host;

  link.start();

  let server: ReturnType<typeof Bun.serve> | undefined;
  const listen = String(values.listen ?? "127.0.0.1:8181").trim();
  if (listen !== "") {
    const { hostname: host, port } = splitListen(listen);
    server = Bun.serve({ hostname: host, port, fetch: createAgentApp(tenant, sink, telemetry, log).fetch, maxRequestBodySize: 64 * 1024 ** 2 });
  }
  const url = server ? `http://${server.hostname}:${server.port}` : undefined;

  const idPrefix = `${feed}:`;
  let lastProgress = 0;
  const tick = setInterval(() => {
    buffer.expire();
    localAlerting.expire();
    hostMonitoring.inventory?.tick();
    sink.accept(telemetryWrites(telemetry, idPrefix, Date.now())).catch((e) => log.error("buffering own metrics failed", { err: e }));
    const d = buffer.depth;
    // Progress while data waits: at most every 30 s, so a long outage is visible but quiet.
    if (d.points > 0 && (!link.ready || planner.replaying) && Date.now() - lastProgress >= 30_000) {
      lastProgress = Date.now();
      log.info(link.ready ? "replaying backlog" : "broker unreachable; buffering", { bufferedPoints: d.points, bufferedBytes: d.bytes, acked: counters.pointsAcked.value });
    }
  }, interval);

  log.info("agent started", { tenant, feed, session: buffer.session, bufferedPoints: buffer.depth.points, listen: url, broker: String(values.broker) });

  let stopped = false;
  return {
    tenant,
    feed,
    url,
    log,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(tick);
      hostMonitoring.stop();
      await server?.stop(true);
      fw.close();
      await link.stop(status("offline"));
      localAlerting.close();
      buffer.close();
      log.info("agent stopped", { bufferedPoints: buffer.depth.points });
    },
  };
}
