import { describe, expect, it } from "vitest";
import { PointsBus } from "../../collector/events/points-bus.ts";
import { registerIngestCounters } from "../../collector/ingest/ingest-telemetry.ts";
import { MessageHandler } from "../../collector/ingest/message-handler.ts";
import type { MetricsStore } from "../../collector/store/metrics/types.ts";
import type { Action, Alert, Event } from "../../src/alerts/model.ts";
import { createLogger } from "../../src/log/logger.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { type Ack, decodeAck, encodeData } from "../../src/protocol/messages.ts";
import { DEFAULT_CLOCK_WINDOW } from "../../src/protocol/clock-window.ts";
import { Telemetry } from "../../src/telemetry/registry.ts";
import { createTestDatabase } from "../helpers/postgres.ts";

const enc = createEncoder();
const dec = createDecoder();

const alert: Alert = {
  eventType: "ALERT",
  tenantId: "agent-side",
  id: "hot-1700000000000-abc",
  ctime: 1_700_000_000_000,
  category: "ALERT",
  text: "hot",
  severity: "HIGH",
  status: "OPEN",
  lifecycle: [{ status: "OPEN", user: "system", stime: 1_700_000_000_000 }],
};
const event: Event = { eventType: "EVENT", tenantId: "agent-side", id: "ev-1", ctime: 1_700_000_000_001, category: "TRIGGER", text: "e" };

function setup(failWith?: () => unknown) {
  const stored: { tenant: string; items: readonly (Alert | Event)[] }[] = [];
  const actions: { tenant: string; feed: string; actions: readonly Action[] }[] = [];
  const alerting = {
    fail: false,
    async ingestFired(tenant: string, items: readonly (Alert | Event)[]) {
      if (failWith) throw failWith();
      if (this.fail) throw new Error("disk full");
      stored.push({ tenant, items });
    },
    async ingestAgentActions(tenant: string, feed: string, list: readonly Action[]) {
      actions.push({ tenant, feed, actions: list });
    },
  };
  const acks: { topic: string; ack: Ack }[] = [];
  const counters = registerIngestCounters(new Telemetry());
  const h = new MessageHandler({
    store: {} as MetricsStore,
    alerting,
    bus: new PointsBus(),
    publish: async (topic, payload) => {
      acks.push({ topic, ack: decodeAck(dec, payload, "events-ack") });
    },
    prefix: "svc",
    enc,
    dec,
    counters,
    clockWindow: DEFAULT_CLOCK_WINDOW,
    log: createLogger("silent"),
  });
  return { h, alerting, stored, actions, acks, counters };
}

const batch = (seq: number, items: unknown[]) =>
  encodeData(enc, { session: 3, seq, sentAt: Date.now(), replay: false, chunks: [enc.encode(items)] }, "events");

describe("events from agents' local triggers", () => {
  it("stores them with the topic's tenant, then acks on events-ack", async () => {
    const s = setup();
    await s.h.handle("svc/acme/f1/events", batch(1, [alert, event]));
    expect(s.stored).toEqual([{ tenant: "acme", items: [alert, event] }]);
    expect(s.acks).toEqual([{ topic: "svc/acme/f1/ack", ack: { session: 3, seqs: [1], rejected: undefined } }]);
  });

  it("refuses a batch with an invalid item for good, naming it", async () => {
    const s = setup();
    await s.h.handle("svc/acme/f1/events", batch(2, [alert, { ...alert, lifecycle: [] }]));
    expect(s.stored).toEqual([]);
    expect(s.acks[0]?.ack.rejected?.[0]).toMatchObject({ seq: 2 });
    expect(s.acks[0]?.ack.rejected?.[0]?.reason).toMatch(/item 1: lifecycle/);
    expect(s.counters.rejected.value).toBe(1);
  });

  it("does not ack when storing fails, so the agent resends", async () => {
    const s = setup();
    s.alerting.fail = true;
    await s.h.handle("svc/acme/f1/events", batch(1, [alert]));
    expect(s.acks).toEqual([]);
    expect(s.counters.storeFailures.value).toBe(1);
  });

  it("an events batch is not a data batch: its ack kind is its own", async () => {
    const s = setup();
    await s.h.handle("svc/acme/f1/events", encodeData(enc, { session: 1, seq: 1, sentAt: 1, replay: false, chunks: [enc.encode([alert])] }));
    expect(s.stored).toEqual([]);
    expect(s.counters.rejected.value).toBe(1);
  });
});

describe("events PostgreSQL cannot hold", () => {
  it("are refused for good, naming the reason, rather than resent forever", async () => {
    // The error PostgreSQL (through Bun's client) answers to a NUL character in a text value.
    const db = await createTestDatabase();
    const nulError = await db.sql.unsafe("SELECT $1::text AS t", ["ev-\u0000"]).then(
      () => undefined,
      (e: unknown) => e,
    );
    await db.drop();
    expect(nulError).toBeDefined();
    const s = setup(() => nulError);
    await s.h.handle("svc/acme/f1/events", batch(4, [{ ...event, id: "ev-\u0000" }]));
    expect(s.acks[0]?.ack.rejected?.[0]).toMatchObject({ seq: 4 });
    expect(s.acks[0]?.ack.rejected?.[0]?.reason).toMatch(/NUL character/);
    expect(s.counters.rejected.value).toBe(1);
    expect(s.counters.storeFailures.value).toBe(0);
  });
});
