import { describe, expect, it } from "vitest";
import { PointsBus, type WrittenPoints } from "../../collector/events/points-bus.ts";
import { registerIngestCounters } from "../../collector/ingest/ingest-telemetry.ts";
import { MessageHandler } from "../../collector/ingest/message-handler.ts";
import type { MetricsStore } from "../../collector/store/metrics/types.ts";
import { createLogger } from "../../src/log/logger.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { columnsToWrites, type WriteColumns } from "../../src/metrics/write-columns.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { type Ack, CHUNK_FORMAT, decodeAck, encodeChunk, encodeData, encodeSeriesChunk, encodeStatus } from "../../src/protocol/messages.ts";
import { DEFAULT_CLOCK_WINDOW } from "../../src/protocol/clock-window.ts";
import { Telemetry } from "../../src/telemetry/registry.ts";

const enc = createEncoder();
const dec = createDecoder();
const plain = (writes: MetricWrite[]) => writes.map((w) => ({ type: w.type, id: w.id, points: w.points }));

function setup() {
  const committed: { tenant: string; writes: MetricWrite[] }[] = [];
  const store = {
    fail: false as boolean | "full",
    async write(tenant: string, writes: MetricWrite[]) {
      if (this.fail === "full") throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
      if (this.fail) throw new Error("disk full");
      committed.push({ tenant, writes });
    },
    // The agent's own chunks arrive as columns (src/protocol/chunk-columns.ts).
    async writeColumns(tenant: string, cols: WriteColumns) {
      await this.write(tenant, plain(columnsToWrites(cols)));
    },
  };
  const bus = new PointsBus();
  const published: WrittenPoints[] = [];
  // Read while published, as listeners must: columns are reused once the batch is stored.
  bus.subscribe((p) => published.push({ tenant: p.tenant, origin: p.origin, writes: plain(p.writes) }));
  const acks: { topic: string; ack: Ack }[] = [];
  const counters = registerIngestCounters(new Telemetry());
  const h = new MessageHandler({
    store: store as unknown as MetricsStore,
    bus,
    publish: async (topic, payload) => {
      acks.push({ topic, ack: decodeAck(dec, payload) });
    },
    prefix: "svc",
    enc,
    dec,
    counters,
    clockWindow: DEFAULT_CLOCK_WINDOW,
    log: createLogger("silent"),
  });
  return { h, store, committed, published, acks, counters };
}

const batch = (seq: number, writes: MetricWrite[]) => encodeData(enc, { session: 1, seq, sentAt: Date.now(), replay: false, chunks: [encodeChunk(enc, writes)] });
const points: MetricWrite[] = [{ type: "gauge", id: "g", points: [{ timestamp: Date.now(), value: 1 }] }];

describe("ingest message handler", () => {
  it("acks after the commit and tells the engines, with the feed as origin", async () => {
    const s = setup();
    await s.h.handle("svc/t%201/f%2F1/data", batch(1, points));
    expect(s.committed).toEqual([{ tenant: "t 1", writes: points }]);
    expect(s.acks).toEqual([{ topic: "svc/t%201/f%2F1/ack", ack: { session: 1, seqs: [1], rejected: undefined } }]);
    expect(s.published).toEqual([{ tenant: "t 1", writes: points, origin: "mqtt:f/1" }]);
    expect(s.counters.points.value).toBe(1);
  });

  it("stores the series chunks of a version 2 batch, and refuses one with a corrupt block without storing any of it", async () => {
    const s = setup();
    const t = Date.now();
    const writes: MetricWrite[] = [
      { type: "gauge", id: "g", points: [{ timestamp: t, value: 1.25 }, { timestamp: t + 1, value: 2 }] },
      { type: "availability", id: "a", points: [{ timestamp: t, value: "up" }] },
    ];
    const v2 = (seq: number, series: Uint8Array) => encodeData(enc, { session: 1, seq, sentAt: t, replay: true, chunks: [encodeChunk(enc, points), series], formats: [CHUNK_FORMAT.cbor, CHUNK_FORMAT.series] });
    await s.h.handle("svc/t/f/data", v2(1, encodeSeriesChunk(enc, writes)));
    expect(s.committed).toEqual([{ tenant: "t", writes: [...points, ...writes] }]);
    expect(s.acks.map((a) => a.ack.seqs)).toEqual([[1]]);
    const entries = dec.decode(encodeSeriesChunk(enc, writes)) as [string, string, Uint8Array][];
    entries[0]![2][entries[0]![2].length - 6]! ^= 1;
    await s.h.handle("svc/t/f/data", v2(2, enc.encode(entries)));
    expect(s.committed).toHaveLength(1);
    expect(s.acks[1]!.ack.seqs).toEqual([]);
    expect(s.acks[1]!.ack.rejected![0]!.reason).toMatch(/invalid chunk 1: series 0 \("g"\): corrupt point block: checksum mismatch/);
    expect(s.counters.rejected.value).toBe(1);
  });

  it("does not ack what the store failed to commit, and goes on with the next batch", async () => {
    const s = setup();
    s.store.fail = true;
    await s.h.handle("svc/t/f/data", batch(1, points));
    expect(s.acks).toEqual([]);
    expect(s.published).toEqual([]);
    expect(s.counters.storeFailures.value).toBe(1);
    s.store.fail = false;
    await s.h.handle("svc/t/f/data", batch(2, points));
    expect(s.acks.map((a) => a.ack.seqs)).toEqual([[2]]);
  });

  it("asks for the batches refused while storage was full again once it recovers, and only those", async () => {
    const s = setup();
    s.store.fail = "full";
    await s.h.handle("svc/t/f/data", batch(1, points));
    await s.h.handle("svc/t/f/data", batch(2, points));
    await s.h.handle("svc/t/g/data", batch(7, points));
    s.store.fail = true; // not a storage failure: resent by the agent's own timer, not asked for
    await s.h.handle("svc/t/f/data", batch(3, points));
    expect(s.acks).toEqual([]);
    s.store.fail = false;
    await s.h.storageRecovered();
    expect(s.acks).toEqual([
      { topic: "svc/t/f/ack", ack: { session: 1, seqs: [], retry: [1, 2] } },
      { topic: "svc/t/g/ack", ack: { session: 1, seqs: [], retry: [7] } },
    ]);
    await s.h.storageRecovered();
    expect(s.acks).toHaveLength(2);
  });

  it("counts points far from the collector clock but stores them", async () => {
    const s = setup();
    await s.h.handle("svc/t/f/data", batch(1, [{ type: "gauge", id: "old", points: [{ timestamp: 0, value: 1 }] }]));
    expect(s.committed).toHaveLength(1);
    expect(s.counters.clockSkew.value).toBe(1);
  });

  it("stores the agent's chunks from reused columns: gauges and counters, the skew counted, the next batch in the same columns", async () => {
    const s = setup();
    const now = Date.now();
    const mixed: MetricWrite[] = [
      { type: "gauge", id: "g", points: [{ timestamp: now, value: 0.5 }, { timestamp: 1, value: -2 }] },
      { type: "counter", id: "c", points: [{ timestamp: now, value: 7 }] },
      { type: "gauge", id: "h", points: [{ timestamp: now, value: 3 }] },
    ];
    await s.h.handle("svc/t/f/data", batch(1, mixed));
    expect(s.committed).toEqual([
      { tenant: "t", writes: [mixed[0], mixed[2]] },
      { tenant: "t", writes: [mixed[1]] },
    ]);
    expect(s.acks.map((a) => a.ack.seqs)).toEqual([[1]]);
    expect(s.counters.points.value).toBe(4);
    expect(s.counters.clockSkew.value).toBe(1);
    await s.h.handle("svc/t/f/data", batch(2, points));
    expect(s.committed[2]).toEqual({ tenant: "t", writes: points });
    expect(s.published.map((p) => p.writes.map((w) => w.id))).toEqual([["g", "h"], ["c"], ["g"]]);
  });

  it("ignores a last will older than the feed's current session", async () => {
    const s = setup();
    await s.h.handle("svc/t/f/status", encodeStatus(enc, { state: "online", session: 2, at: 1 }));
    await s.h.handle("svc/t/f/status", encodeStatus(enc, { state: "offline", session: 1, at: 1 }));
    await s.h.handle("svc/t/f/status", new Uint8Array());
    expect(s.committed.map((c) => c.writes[0]!.points[0]!.value)).toEqual(["up"]);
    await s.h.handle("svc/t/f/status", encodeStatus(enc, { state: "offline", session: 2, at: 1 }));
    expect(s.committed.map((c) => c.writes[0]!.points[0]!.value)).toEqual(["up", "down"]);
    expect(s.committed[0]!.writes[0]!.id).toBe("f:outpost_agent_up");
  });
});
