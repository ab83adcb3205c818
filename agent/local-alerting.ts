import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Decoder, Encoder } from "cbor-x";
import { actionsConfig } from "../src/agent-config/actions.ts";
import type { Action, Alert, Event } from "../src/alerts/model.ts";
import { EVENTS_CHUNK_FORMAT } from "../src/protocol/events-messages.ts";
import type { OptionValues } from "../src/config/options.ts";
import type { Logger } from "../src/log/logger.ts";
import type { MetricWrite } from "../src/metrics/model.ts";
import { ProtocolError } from "../src/protocol/envelope.ts";
import { decodeTriggers } from "../src/protocol/triggers-messages.ts";
import { openDatabase } from "../src/sqlite/open.ts";
import type { Telemetry } from "../src/telemetry/registry.ts";
import { PointBuffer } from "./buffer/point-buffer.ts";
import { getMeta, setMeta } from "./buffer/schema.ts";
import { Forwarder, type Publisher } from "./forward/forwarder.ts";
import { SendPlanner } from "./forward/send-planner.ts";
import type { AgentStorage } from "./storage.ts";
import { ActionJournal } from "./actions/journal.ts";
import { LocalActions } from "./actions/local-actions.ts";
import { FiredQueue } from "./triggers/fired-queue.ts";
import { LocalTriggers } from "./triggers/local-triggers.ts";

export interface LocalAlerting {
  /** Points the agent accepted: evaluated by the local triggers that read them. */
  onWrites(writes: readonly MetricWrite[]): void;
  /** A message on the agent's `triggers` topic. */
  onTriggers(payload: Uint8Array): void;
  /** An `events-ack` from the collector. */
  onAck(payload: Uint8Array): void;
  linkReady(): void;
  /** Every tick: drops what exceeds the events buffer's age limit; local actions' housekeeping. */
  expire(): void;
  /** New events buffer limits (SIGHUP, remote configuration). */
  setLimits(values: OptionValues): void;
  /** Waits (a few seconds at most) for local actions running, then closes. */
  close(): Promise<void>;
}

/**
 * Local triggers and the forwarding of what they fire: alerts and events are kept in their
 * own SQLite buffer (`events.db`) until the collector acknowledges them, with the same buffer,
 * planner and forwarder as points, on the `events` topic (docs/local-triggers.md).
 */
export async function startLocalAlerting(o: {
  values: OptionValues;
  tenant: string;
  feed: string;
  dataDir: string;
  synchronous: "FULL" | "NORMAL";
  eventsTopic: string;
  link: Publisher;
  enc: Encoder;
  dec: Decoder;
  telemetry: Telemetry;
  storage: AgentStorage;
  log: Logger;
  /** The agent's identity, sent with every events batch (docs/fleet.md). */
  instance?: string;
}): Promise<LocalAlerting> {
  const log = o.log.child("triggers");
  const t = o.telemetry;
  const counters = {
    batchesSent: t.counter("outpost_agent_events_batches_sent_total", "batches of fired alerts and events published (first attempts)"),
    batchesResent: t.counter("outpost_agent_events_batches_resent_total", "batches of fired alerts and events published again for want of an ack"),
    batchesAcked: t.counter("outpost_agent_events_batches_acked_total", "batches of fired alerts and events the collector stored"),
    pointsAcked: t.counter("outpost_agent_events_acked_total", "fired alerts and events the collector stored"),
    pointsRejected: t.counter("outpost_agent_events_dropped_rejected_total", "fired alerts and events dropped because the collector refused them"),
    acksInvalid: t.counter("outpost_agent_events_acks_invalid_total", "events-ack messages that could not be decoded"),
    fired: t.counter("outpost_agent_events_fired_total", "alerts and events fired or resolved by local triggers"),
  };
  const db = openDatabase(join(o.dataDir, "events.db"), { synchronous: o.synchronous });
  o.storage.register("events", db);
  let forwarder: Forwarder | undefined;
  const buffer = new PointBuffer(
    db,
    { tenant: o.tenant, feed: o.feed },
    {
      maxBytes: Number(o.values["events-buffer-max-bytes"] ?? 32 * 1024 ** 2),
      maxAgeMs: Number(o.values["buffer-max-age"] ?? 86_400_000),
      chunkPoints: 500,
    },
    o.enc,
    {
      appended: () => forwarder?.pump(),
      dropped: (reason, items) => log.warn("events buffer limit reached: dropped the oldest alerts and events", { reason, items }),
      writeFailed: o.storage.failed("events"),
      space: o.storage.space("events"),
    },
  );
  // Alerts are few and each matters: no replay limit, small batches.
  const planner = new SendPlanner(buffer, { batchPoints: 500, replayRate: 0, freshAgeMs: 10_000 });
  const fw = new Forwarder(
    buffer,
    planner,
    o.link,
    o.enc,
    o.dec,
    { dataTopic: o.eventsTopic, kind: "events", window: 4, ackTimeoutMs: Number(o.values["ack-timeout"] ?? 10_000), instance: o.instance },
    counters,
    log,
  );
  forwarder = fw;
  t.gauge("outpost_agent_events_buffered", "fired alerts and events waiting for the collector's ack", () => buffer.depth.points);

  const queue = new FiredQueue((groups) => buffer.appendChunks(groups.map(({ items }) => ({ body: o.enc.encode(items), points: items.length }))), log);
  const journalPath = join(o.dataDir, "actions.db");
  const actions = new LocalActions({
    tenant: o.tenant,
    feed: o.feed,
    config: actionsConfig(o.values),
    journalExists: existsSync(journalPath),
    journal: () => {
      // Always FULL: a run recorded as started must be on disk before the action starts.
      const db = openDatabase(journalPath, { synchronous: "FULL", cacheKiB: 512 });
      o.storage.register("actions", db);
      return new ActionJournal(db);
    },
    // Outcomes travel in the events buffer, in chunks of their own format (docs/protocol.md).
    report: (outcomes: Action[]) => buffer.appendChunks([{ body: o.enc.encode(outcomes), points: outcomes.length, format: EVENTS_CHUNK_FORMAT.actions }]),
    counters: {
      ran: t.counter("outpost_agent_actions_processed_total", "local actions that ran and succeeded"),
      failed: t.counter("outpost_agent_actions_failed_total", "local actions that ran and failed, or were interrupted by a stop"),
      refused: t.counter("outpost_agent_actions_refused_total", "local actions refused: not allowed by [agent.actions], or over the trigger's rate"),
    },
    log: log.child("actions"),
  });
  const fired = (items: (Alert | Event)[]) => {
    counters.fired.inc(items.length);
    // Actions run once the alert is in the buffer: a kill -9 in between must not leave an action
    // that ran for an alert the collector never hears of.
    queue.push(items, () => actions.onFired(items));
  };

  const triggers = new LocalTriggers({
    tenant: o.tenant,
    feed: o.feed,
    fired,
    store: { load: () => getMeta(db, "triggers"), save: (text) => setMeta(db, "triggers", text) },
    actions: (defs) => actions.setDefinitions(defs),
    log,
  });
  t.gauge("outpost_agent_local_triggers", "triggers this agent evaluates", () => triggers.triggerCount);
  t.gauge("outpost_agent_action_definitions", "definitions of local actions pushed with the triggers", () => actions.definitionCount);
  await triggers.restore();

  // Pushed sets are applied one after another, in the order they arrived.
  let applying: Promise<void> = Promise.resolve();
  return {
    onWrites: (writes) => triggers.onWrites(writes),
    onTriggers(payload) {
      if (payload.length === 0) return; // a cleared retained message
      let msg: ReturnType<typeof decodeTriggers>;
      try {
        msg = decodeTriggers(o.dec, payload);
      } catch (e) {
        log.warn("ignoring an invalid triggers message", { err: e instanceof ProtocolError ? e.message : String(e) });
        return;
      }
      applying = applying.then(() => triggers.apply(msg)).catch((e) => log.error("applying pushed triggers failed", { err: (e as Error).message }));
    },
    onAck: (payload) => fw.onAck(payload),
    linkReady: () => fw.linkReady(),
    expire: () => {
      buffer.expire();
      actions.tick();
    },
    setLimits(values) {
      buffer.setLimits({ maxBytes: Number(values["events-buffer-max-bytes"] ?? 32 * 1024 ** 2), maxAgeMs: Number(values["buffer-max-age"] ?? 30 * 86_400_000) });
    },
    async close() {
      await actions.close();
      queue.close();
      triggers.close();
      fw.close();
      buffer.close();
    },
  };
}
