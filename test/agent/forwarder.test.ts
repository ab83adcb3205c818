import { afterEach, describe, expect, it } from "vitest";
import { PointBuffer } from "../../agent/buffer/point-buffer.ts";
import { Forwarder } from "../../agent/forward/forwarder.ts";
import { SendPlanner } from "../../agent/forward/send-planner.ts";
import { createAgentTelemetry } from "../../agent/telemetry.ts";
import { createLogger } from "../../src/log/logger.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { decodeData, encodeAck } from "../../src/protocol/messages.ts";
import { openDatabase } from "../../src/sqlite/open.ts";

const enc = createEncoder();
const dec = createDecoder();

class FakeLink {
  ready = true;
  fail = false;
  sent: { seq: number; session: number; points: number; replay: boolean }[] = [];
  async publish(_topic: string, payload: Uint8Array) {
    if (this.fail) throw new Error("connection lost");
    const b = decodeData(dec, payload);
    this.sent.push({ seq: b.seq, session: b.session, points: b.points, replay: b.replay });
  }
}

const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

async function setup(opts: { window?: number; ackTimeoutMs?: number; replayRate?: number } = {}) {
  let now = 1_000_000;
  const buffer = new PointBuffer(openDatabase(":memory:"), { tenant: "t", feed: "f" }, { maxBytes: 1e9, maxAgeMs: 1e9, chunkPoints: 10 }, enc, {}, () => now, 1);
  const planner = new SendPlanner(buffer, { batchPoints: 10, replayRate: opts.replayRate ?? 0, freshAgeMs: 60_000 }, () => now);
  const link = new FakeLink();
  const { counters } = createAgentTelemetry();
  const fw = new Forwarder(buffer, planner, link, enc, dec, { dataTopic: "svc/t/f/data", window: opts.window ?? 2, ackTimeoutMs: opts.ackTimeoutMs ?? 1000 }, counters, createLogger("silent"), () => now);
  closers.push(() => {
    fw.close();
    buffer.close();
  });
  const append = async (n: number) => {
    await buffer.append([{ type: "gauge", id: "g", points: Array.from({ length: n }, (_, i) => ({ timestamp: now + i, value: i })) }]);
  };
  const settle = () => new Promise((r) => setTimeout(r, 5));
  const ack = (seqs: number[], rejected?: { seq: number; reason: string }[], session = buffer.session) => fw.onAck(encodeAck(enc, { session, seqs, rejected }));
  return { buffer, link, fw, counters, append, settle, ack, advance: (ms: number) => (now += ms) };
}

describe("forwarder", () => {
  it("keeps at most `window` batches in flight and removes points only when acked", async () => {
    const s = await setup();
    await s.append(45);
    s.fw.pump();
    await s.settle();
    expect(s.link.sent.map((b) => b.seq)).toEqual([1, 2]);
    expect(s.fw.inFlightBatches).toBe(2);
    s.ack([1]);
    await s.settle();
    expect(s.link.sent.map((b) => b.seq)).toEqual([1, 2, 3]);
    s.buffer.flush();
    expect(s.buffer.depth.points).toBe(35);
    s.ack([2, 3]);
    s.ack([4, 5]);
    s.buffer.flush();
    expect(s.buffer.depth.points).toBe(0);
    expect(s.counters.pointsAcked.value).toBe(45);
    expect(s.counters.batchesAcked.value).toBe(5);
  });

  it("resends a batch that is not acknowledged in time, and after the link comes back", async () => {
    const s = await setup({ window: 1, ackTimeoutMs: 1000 });
    await s.append(5);
    s.fw.pump();
    await s.settle();
    s.advance(999);
    s.fw.pump();
    expect(s.link.sent).toHaveLength(1);
    s.advance(1);
    s.fw.pump();
    await s.settle();
    expect(s.link.sent.map((b) => b.seq)).toEqual([1, 1]);
    expect(s.counters.batchesResent.value).toBe(1);

    s.link.ready = false;
    s.fw.pump();
    s.link.ready = true;
    s.fw.linkReady();
    await s.settle();
    expect(s.link.sent.map((b) => b.seq)).toEqual([1, 1, 1]);
    s.ack([1]);
    s.buffer.flush();
    expect(s.buffer.depth.points).toBe(0);
  });

  it("sends batches larger than the release threshold whole, and resends them intact after their first copy was freed", async () => {
    let now = 1_000_000;
    const buffer = new PointBuffer(openDatabase(":memory:"), { tenant: "t", feed: "f" }, { maxBytes: 1e9, maxAgeMs: 1e9, chunkPoints: 50_000 }, enc, {}, () => now, 1);
    const planner = new SendPlanner(buffer, { batchPoints: 50_000, replayRate: 0, freshAgeMs: 60_000 }, () => now);
    const got: number[][] = [];
    const link = {
      ready: true,
      async publish(_topic: string, payload: Uint8Array) {
        got.push(decodeData(dec, payload).writes.flatMap((w) => w.points.map((p) => p.value as number)));
      },
    };
    const { counters } = createAgentTelemetry();
    const fw = new Forwarder(buffer, planner, link, enc, dec, { dataTopic: "svc/t/f/data", window: 1, ackTimeoutMs: 1000 }, counters, createLogger("silent"), () => now);
    closers.push(() => {
      fw.close();
      buffer.close();
    });
    // 20,000 series of one point, as a large scrape buffers them: about 1 MB encoded.
    const writes = Array.from({ length: 20_000 }, (_, i) => ({ type: "gauge" as const, id: `scraped_series_total{instance="127.0.0.1:9100",job="node",n="${i}"}`, points: [{ timestamp: now, value: i }] }));
    await buffer.append(writes);
    fw.pump();
    await new Promise((r) => setTimeout(r, 5));
    now += 1000;
    fw.pump();
    await new Promise((r) => setTimeout(r, 5));
    const want = writes.map((w) => w.points[0]!.value);
    expect(got).toEqual([want, want]);
    fw.onAck(encodeAck(enc, { session: buffer.session, seqs: [1] }));
    buffer.flush();
    expect(buffer.depth.points).toBe(0);
  });

  it("resends at once the batches the collector asks for again (refused while its disk was full)", async () => {
    const s = await setup({ window: 2, ackTimeoutMs: 1000 });
    await s.append(15);
    s.fw.pump();
    await s.settle();
    s.advance(1000);
    s.fw.pump(); // no ack: both resent, now due in 2 s
    await s.settle();
    expect(s.link.sent.map((b) => b.seq)).toEqual([1, 2, 1, 2]);
    s.advance(100);
    s.fw.onAck(encodeAck(enc, { session: s.buffer.session, seqs: [], retry: [2, 99] }));
    await s.settle();
    expect(s.link.sent.map((b) => b.seq)).toEqual([1, 2, 1, 2, 2]);
    s.ack([1, 2]);
    s.buffer.flush();
    expect(s.buffer.depth.points).toBe(0);
  });

  it("resends when publishing failed because the connection dropped", async () => {
    const s = await setup({ window: 1 });
    await s.append(5);
    s.link.fail = true;
    s.fw.pump();
    await s.settle();
    s.link.fail = false;
    s.fw.pump();
    await s.settle();
    expect(s.link.sent.map((b) => b.seq)).toEqual([1]);
  });

  it("after an outage sends fresh points before the backlog, which it replays at the limited rate", async () => {
    const s = await setup({ window: 100, replayRate: 20, ackTimeoutMs: 600_000 });
    s.link.ready = false;
    await s.append(100); // buffered during the outage: 10 chunks
    s.advance(120_000);
    await s.append(10); // current data
    s.link.ready = true;
    s.fw.linkReady();
    await s.settle();
    expect(s.link.sent.map((b) => b.replay)).toEqual([false, true, true]); // fresh, then a burst of 20 points
    s.advance(1000);
    s.fw.pump();
    await s.settle();
    expect(s.link.sent.filter((b) => b.replay)).toHaveLength(4); // 20 more points per second
    for (let i = 0; i < 3; i++) {
      s.advance(1000);
      s.fw.pump();
    }
    await s.settle();
    expect(s.link.sent.filter((b) => b.replay)).toHaveLength(10);
    expect(s.counters.batchesResent.value).toBe(0);
  });

  it("ignores acks of another session and garbage, and drops refused batches", async () => {
    const s = await setup();
    await s.append(15);
    s.fw.pump();
    await s.settle();
    s.ack([1, 2], undefined, s.buffer.session + 1);
    s.fw.onAck(new Uint8Array([1, 2, 3]));
    s.buffer.flush();
    expect(s.buffer.depth.points).toBe(15);
    expect(s.counters.acksInvalid.value).toBe(1);
    s.ack([1], [{ seq: 2, reason: "invalid chunk 0" }]);
    s.buffer.flush();
    expect(s.buffer.depth.points).toBe(0);
    expect(s.counters.pointsRejected.value).toBe(5);
  });
});
