import type { Decoder, Encoder } from "cbor-x";
import type { Logger } from "../../src/log/logger.ts";
import { createLogThrottle } from "../../src/log/throttle.ts";
import { postgresRejectedText } from "../../src/postgres/failure.ts";
import { storageFailure } from "../../src/sqlite/storage-failure.ts";
import { type ClockWindow, columnsOutsideWindow, type OutsideWindow, pointsOutsideWindow } from "../../src/protocol/clock-window.ts";
import type { DataColumns } from "../../src/protocol/chunk-columns.ts";
import type { Action, Alert, Event } from "../../src/alerts/model.ts";
import { decodeEvents } from "../../src/protocol/events-messages.ts";
import { decodeInventory, encodeInventoryAck, type InventoryAck } from "../../src/protocol/inventory-messages.ts";
import { type AckKind, type BatchRef, decodeData, decodeStatus, encodeAck, ProtocolError, type Status } from "../../src/protocol/messages.ts";
import { buildTopic, parseTopic, type TopicAddress } from "../../src/protocol/topics.ts";
import type { PointsBus } from "../events/points-bus.ts";
import type { Inventory } from "../inventory/context.ts";
import { writePoints } from "../metrics/write-points.ts";
import type { MemoryGovernor } from "../../src/http/memory-governor.ts";
import type { MetricsStore } from "../store/metrics/types.ts";
import { applyAgentInventory, InventoryRefused } from "./agent-inventory.ts";
import { BatchColumns, writeBatchColumns } from "./batch-columns.ts";
import { DeferredBatches } from "./deferred-batches.ts";
import type { FleetGate } from "./fleet-gate.ts";
import type { IngestCounters } from "./ingest-telemetry.ts";
import { PresenceTracker } from "./presence.ts";

export interface HandlerDeps {
  store: MetricsStore;
  /** Where agents' inventory structures are applied; without it they are rejected. */
  inventory?: Inventory;
  /** Stores what agents' local triggers fired, without evaluating it again; without it events are rejected. */
  alerting?: {
    ingestFired(tenant: string, items: readonly (Alert | Event)[]): Promise<unknown>;
    ingestAgentActions(tenant: string, feed: string, actions: readonly Action[]): Promise<unknown>;
  };
  /** Agent identities and remote configuration (docs/fleet.md); without it, messages are taken from any agent as before. */
  fleet?: FleetGate;
  /** Told when an agent announces itself online (the trigger push hooks in here). */
  onAgentOnline?: (tenant: string, feed: string, identified: boolean) => void;
  /** Told every valid status of the feed's holder (its version and upgrade report: collector/fleet/). */
  onStatus?: (tenant: string, feed: string, s: Status) => void;
  bus: PointsBus;
  /** --value-precision (write-points.ts). */
  valuePrecision?: number;
  publish(topic: string, payload: Uint8Array): Promise<void>;
  prefix: string;
  enc: Encoder;
  dec: Decoder;
  counters: IngestCounters;
  clockWindow: ClockWindow;
  log: Logger;
  /** Collects garbage as batches arrive when memory is above --memory-target. */
  memory?: MemoryGovernor;
  now?: () => number;
}

/**
 * What a point costs in the JSON write bodies the memory governor counts: a decoded MQTT
 * batch leaves as much garbage per point as one parsed from JSON, whatever its compact size.
 */
const JSON_BYTES_PER_POINT = 56;

/**
 * Handles every message from agents: data batches are decoded, validated, committed, then
 * acknowledged; statuses become availability points. Never throws: a bad message is counted,
 * logged (throttled) and dropped, and the stream goes on.
 */
export class MessageHandler {
  private readonly presence = new PresenceTracker();
  private readonly throttle = createLogThrottle(10_000);
  private readonly now: () => number;
  private readonly pending = new Set<Promise<void>>();
  private readonly deferred = new DeferredBatches();
  private readonly columns = new BatchColumns();

  constructor(private readonly d: HandlerDeps) {
    this.now = d.now ?? Date.now;
  }

  /** Starts handling; the returned promise settles when the message is fully handled. */
  handle(topic: string, payload: Uint8Array): Promise<void> {
    const p = this.dispatch(topic, payload).catch((e) => this.d.log.error("unexpected ingest failure", { topic, err: (e as Error)?.stack ?? String(e) }));
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
    return p;
  }

  /**
   * Storage takes writes again: asks every agent whose batches were refused meanwhile to resend
   * them now, instead of waiting out its backed-off resend timer.
   */
  async storageRecovered(): Promise<void> {
    const requests = this.deferred.takeAll();
    for (const r of requests) await this.ack(r, { session: r.session, seq: 0 }, { kind: r.kind, retry: r.seqs, instance: r.instance });
    if (requests.length > 0) this.d.log.info("asked agents to resend batches refused while storage was failing", { feeds: requests.length });
  }

  /** Waits for messages being handled (used on shutdown, so no commit is left un-acked needlessly). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.pending]);
  }

  private async dispatch(topic: string, payload: Uint8Array): Promise<void> {
    this.d.counters.messages.inc();
    const addr = parseTopic(this.d.prefix, topic);
    if (!addr) return this.reject(topic, new ProtocolError("not an agent topic"));
    switch (addr.kind) {
      case "data":
        return this.data(addr, topic, payload);
      case "status":
        return this.status(addr, topic, payload);
      case "events":
        if (this.d.alerting) return this.events(addr, topic, payload, this.d.alerting);
        return this.reject(topic, new ProtocolError("events messages are not handled by this collector"));
      case "inventory":
        if (this.d.inventory) return this.inventory(addr, topic, payload, this.d.inventory);
        return this.reject(topic, new ProtocolError("inventory messages are not handled by this collector"));
      case "config-status":
        if (this.d.fleet) return this.configStatus(addr, topic, payload, this.d.fleet);
        return this.reject(topic, new ProtocolError("config-status messages are not handled by this collector"));
      default:
        return this.reject(topic, new ProtocolError(`${addr.kind} messages are not handled by this collector version`));
    }
  }

  private async data(addr: TopicAddress, topic: string, payload: Uint8Array): Promise<void> {
    let batch: ReturnType<typeof decodeData>;
    const out = this.columns.take();
    try {
      batch = decodeData(this.d.dec, payload, { reader: this.columns.reader, out });
    } catch (e) {
      this.columns.give(out);
      return this.reject(topic, e, addr);
    }
    const cols = batch.columns;
    if (!cols) this.columns.give(out);
    // Another identity than the feed's holder (a cloned device): not stored, not acknowledged.
    if (this.d.fleet && !(await this.d.fleet.admit(addr, batch.instance, "a data batch"))) {
      if (cols) this.columns.give(cols);
      return;
    }
    const origin = `mqtt:${addr.feed}`;
    // Read into columns, a batch leaves about its own bytes as garbage; as objects, as much as JSON.
    if (this.d.memory?.enabled) this.d.memory.collectIfDue(cols ? payload.byteLength : batch.points * JSON_BYTES_PER_POINT);
    try {
      // Labels first, as the remote-write route does: no query sees these series without them.
      if (batch.definitions.length > 0) await this.d.store.ensureTags(addr.tenant, batch.definitions);
      if (cols) await writeBatchColumns(this.d, addr.tenant, cols, origin);
      else await writePoints(this.d, addr.tenant, batch.writes, origin);
    } catch (e) {
      // No ack: the agent keeps the batch and resends it. A full disk is logged by the storage health.
      if (cols) this.columns.give(cols);
      this.d.counters.storeFailures.inc();
      if (storageFailure(e) !== undefined) this.deferred.add({ tenant: addr.tenant, feed: addr.feed, kind: "ack", session: batch.session, seq: batch.seq, instance: batch.instance });
      else if (this.throttle("store").pass) this.d.log.error("storing a batch failed; the agent will resend it", { tenant: addr.tenant, feed: addr.feed, err: (e as Error).message });
      return;
    }
    const skew = cols ? columnsSkew(cols, this.now(), this.d.clockWindow) : pointsOutsideWindow(batch.writes, this.now(), this.d.clockWindow);
    if (cols) this.columns.give(cols);
    this.d.counters.batches.inc();
    this.d.counters.points.inc(batch.points);
    await this.ack(addr, { session: batch.session, seq: batch.seq }, { instance: batch.instance });
    if (skew.count > 0) {
      this.d.counters.clockSkew.inc(skew.count);
      if (this.throttle(`skew:${addr.tenant}:${addr.feed}`).pass) {
        this.d.log.warn("points with timestamps far from the collector clock (stored, flagged)", { tenant: addr.tenant, feed: addr.feed, points: skew.count, metric: skew.example?.id });
      }
    }
  }

  /**
   * Acks `ref` (or refuses it for good with `rejected`); with `retry`, asks instead for those
   * batches again. `instance` names the agent identity whose batch it is (docs/fleet.md).
   */
  private async ack(addr: Pick<TopicAddress, "tenant" | "feed">, ref: BatchRef, o: { rejected?: string; kind?: AckKind; retry?: number[]; instance?: string } = {}): Promise<void> {
    const { rejected, retry, instance } = o;
    const who = instance === undefined ? {} : { instance };
    const payload = encodeAck(
      this.d.enc,
      retry
        ? { session: ref.session, seqs: [], retry, ...who }
        : rejected === undefined
          ? { session: ref.session, seqs: [ref.seq], ...who }
          : { session: ref.session, seqs: [], rejected: [{ seq: ref.seq, reason: rejected }], ...who },
      o.kind ?? "ack",
    );
    try {
      await this.d.publish(buildTopic(this.d.prefix, { tenant: addr.tenant, feed: addr.feed, kind: "ack" }), payload);
      this.d.counters.acks.inc();
    } catch (e) {
      // The agent resends for want of an ack; storage is idempotent.
      if (this.throttle("ack").pass) this.d.log.warn("publishing an ack failed", { err: (e as Error).message });
    }
  }

  /** Stores what the agent's triggers fired, then acks the batch on `events-ack`. */
  private async events(addr: TopicAddress, topic: string, payload: Uint8Array, alerting: NonNullable<HandlerDeps["alerting"]>): Promise<void> {
    let batch: ReturnType<typeof decodeEvents>;
    try {
      batch = decodeEvents(this.d.dec, payload);
    } catch (e) {
      this.d.counters.rejected.inc();
      const reason = e instanceof ProtocolError ? e.message : String(e);
      if (this.throttle(`reject:${topic}`).pass) this.d.log.warn("rejected a malformed events batch", { topic, reason });
      if (e instanceof ProtocolError && e.batch) await this.ack(addr, e.batch, { rejected: reason, kind: "events-ack" });
      return;
    }
    if (this.d.fleet && !(await this.d.fleet.admit(addr, batch.instance, "an events batch"))) return;
    const instance = batch.instance;
    try {
      // The alerts before the outcomes of their actions: the history then names stored alerts.
      if (batch.items.length > 0) await alerting.ingestFired(addr.tenant, batch.items);
      if (batch.actions.length > 0) await alerting.ingestAgentActions(addr.tenant, addr.feed, batch.actions);
    } catch (e) {
      const rejectedText = postgresRejectedText(e);
      if (rejectedText) {
        // Would be refused again: acked as rejected, so the agent drops it rather than resending forever.
        this.d.counters.rejected.inc();
        if (this.throttle(`reject:${topic}`).pass) this.d.log.warn("rejected an events batch", { topic, reason: rejectedText });
        return this.ack(addr, { session: batch.session, seq: batch.seq }, { rejected: rejectedText, kind: "events-ack", instance });
      }
      this.d.counters.storeFailures.inc();
      if (storageFailure(e) !== undefined) this.deferred.add({ tenant: addr.tenant, feed: addr.feed, kind: "events-ack", session: batch.session, seq: batch.seq, instance });
      else if (this.throttle("store").pass) this.d.log.error("storing fired alerts failed; the agent will resend them", { tenant: addr.tenant, feed: addr.feed, err: (e as Error).message });
      return;
    }
    this.d.log.info("stored alerts and events fired by an agent", { tenant: addr.tenant, feed: addr.feed, items: batch.items.length, actions: batch.actions.length || undefined, replay: batch.replay });
    await this.ack(addr, { session: batch.session, seq: batch.seq }, { kind: "events-ack", instance });
  }

  /** Applies the structure at the agent's feed, then acks its digest (or refuses it for good). */
  private async inventory(addr: TopicAddress, topic: string, payload: Uint8Array, inventory: Inventory): Promise<void> {
    let msg: ReturnType<typeof decodeInventory>;
    try {
      msg = decodeInventory(this.d.dec, payload);
    } catch (e) {
      return this.reject(topic, e);
    }
    if (this.d.fleet && !(await this.d.fleet.admit(addr, msg.instance, "an inventory"))) return;
    const where = { tenant: addr.tenant, feed: addr.feed, digest: msg.digest };
    const who = msg.instance === undefined ? {} : { instance: msg.instance };
    try {
      const { metrics } = await applyAgentInventory({ inventory, store: this.d.store }, addr.tenant, addr.feed, msg.structure);
      this.d.log.info("agent inventory synced", { ...where, metrics });
      await this.inventoryAck(addr, { digest: msg.digest, ...who });
    } catch (e) {
      if (e instanceof InventoryRefused) {
        this.d.counters.rejected.inc();
        this.d.log.warn("refused an agent inventory", { ...where, reason: e.message });
        return this.inventoryAck(addr, { digest: msg.digest, error: e.message, ...who });
      }
      // No ack: the agent sends it again.
      this.d.counters.storeFailures.inc();
      this.d.log.error("applying an agent inventory failed; the agent will resend it", { ...where, err: (e as Error).message });
    }
  }

  private async inventoryAck(addr: TopicAddress, ack: InventoryAck): Promise<void> {
    try {
      await this.d.publish(buildTopic(this.d.prefix, { tenant: addr.tenant, feed: addr.feed, kind: "ack" }), encodeInventoryAck(this.d.enc, ack));
    } catch (e) {
      if (this.throttle("ack").pass) this.d.log.warn("publishing an inventory ack failed", { err: (e as Error).message });
    }
  }

  private async status(addr: TopicAddress, topic: string, payload: Uint8Array): Promise<void> {
    if (payload.length === 0) return; // a cleared retained status
    let s: ReturnType<typeof decodeStatus>;
    try {
      s = decodeStatus(this.d.dec, payload);
    } catch (e) {
      return this.reject(topic, e);
    }
    // A claim is answered; the status of an identity refused the feed is not its presence.
    try {
      if (this.d.fleet && !(await this.d.fleet.status(addr, s))) return;
    } catch (e) {
      this.d.counters.storeFailures.inc();
      this.d.log.error("recording an agent's claim failed", { tenant: addr.tenant, feed: addr.feed, err: (e as Error).message });
      return;
    }
    // Only the holder's: a cloned device's status must not overwrite the real agent's upgrade report.
    this.d.onStatus?.(addr.tenant, addr.feed, s);
    const write = this.presence.record(addr.tenant, addr.feed, s, this.now());
    if (!write) return;
    try {
      await writePoints(this.d, addr.tenant, [write], `mqtt:${addr.feed}`);
    } catch (e) {
      this.d.counters.storeFailures.inc();
      this.d.log.error("recording presence failed", { tenant: addr.tenant, feed: addr.feed, err: (e as Error).message });
      return;
    }
    this.d.counters.presence.inc();
    this.d.log.info(`agent ${s.state}`, { tenant: addr.tenant, feed: addr.feed, session: s.session });
    if (s.state === "online") this.d.onAgentOnline?.(addr.tenant, addr.feed, s.instance !== undefined);
  }

  private async reject(topic: string, e: unknown, addr?: TopicAddress): Promise<void> {
    this.d.counters.rejected.inc();
    const reason = e instanceof ProtocolError ? e.message : String(e);
    const t = this.throttle(`reject:${topic}`);
    if (t.pass) this.d.log.warn("rejected a malformed message", { topic, reason, suppressedWarnings: t.suppressed || undefined });
    // An identifiable batch that is invalid would be invalid again: tell the agent to drop it.
    if (addr && e instanceof ProtocolError && e.batch) await this.ack(addr, e.batch, { rejected: reason });
  }

  /** A configuration report of the feed's agent (docs/fleet.md). */
  private async configStatus(addr: TopicAddress, topic: string, payload: Uint8Array, fleet: FleetGate): Promise<void> {
    try {
      const r = await fleet.configStatus(addr, topic, payload);
      if (r instanceof ProtocolError) return this.reject(topic, r);
    } catch (e) {
      this.d.counters.storeFailures.inc();
      this.d.log.error("recording a configuration report failed", { tenant: addr.tenant, feed: addr.feed, err: (e as Error).message });
    }
  }
}

/** Points of both types' columns outside the clock window. */
function columnsSkew(c: DataColumns, now: number, w: ClockWindow): OutsideWindow {
  const g = columnsOutsideWindow(c.gauge.ids, c.gauge.counts, c.gauge.ts, now, w);
  const k = columnsOutsideWindow(c.counter.ids, c.counter.counts, c.counter.ts, now, w);
  return { count: g.count + k.count, example: g.example ?? k.example };
}
