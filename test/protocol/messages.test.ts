import { describe, expect, it } from "vitest";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder, isNativeAccelerationEnabled } from "../../src/protocol/cbor.ts";
import { decodeAck, decodeData, decodeStatus, encodeAck, encodeChunk, encodeData, encodeStatus, ProtocolError } from "../../src/protocol/messages.ts";

const enc = createEncoder();
const dec = createDecoder();
const writes: MetricWrite[] = [
  { type: "gauge", id: "cpu", points: [{ timestamp: 1000, value: 1.5 }, { timestamp: 2000, value: 2, tags: { k: "v" } }] },
  { type: "availability", id: "web", points: [{ timestamp: 1000, value: "up" }] },
  { type: "counter", id: "req", points: [{ timestamp: 1000, value: 42 }] },
  { type: "string", id: "log", points: [{ timestamp: 1000, value: "hello" }] },
];

function expectProtocolError(f: () => unknown, match: RegExp, batch?: { session: number; seq: number }) {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ProtocolError);
    expect((e as ProtocolError).message).toMatch(match);
    expect((e as ProtocolError).batch).toEqual(batch);
    return;
  }
  throw new Error("expected a ProtocolError");
}

describe("protocol messages", () => {
  it("runs cbor-x without native acceleration under Bun", () => {
    expect(isNativeAccelerationEnabled).toBe(false);
  });

  it("round-trips a data batch of several chunks", () => {
    const payload = encodeData(enc, { session: 3, seq: 7, sentAt: 5, replay: true, chunks: [encodeChunk(enc, writes.slice(0, 2)), encodeChunk(enc, writes.slice(2))] });
    const b = decodeData(dec, payload);
    expect(b).toMatchObject({ session: 3, seq: 7, sentAt: 5, replay: true, points: 5 });
    expect(b.writes).toEqual(writes);
  });

  it("rejects garbage, wrong versions and wrong shapes", () => {
    expectProtocolError(() => decodeData(dec, new Uint8Array()), /empty/);
    expectProtocolError(() => decodeData(dec, new Uint8Array([0xff, 0x01, 0x02])), /not valid CBOR/);
    expectProtocolError(() => decodeData(dec, enc.encode("hello")), /not a map/);
    expectProtocolError(() => decodeData(dec, enc.encode({ v: 5, kind: "data" })), /unsupported data message version 5/);
    expectProtocolError(() => decodeData(dec, enc.encode({ v: 1, kind: "data", session: 1, seq: 0, sentAt: 1, replay: false, chunks: [] })), /invalid data batch/);
  });

  it("names the batch when only its points are invalid, so it can be refused by ack", () => {
    const bad = (w: unknown) => encodeData(enc, { session: 1, seq: 9, sentAt: 1, replay: false, chunks: [enc.encode(w)] });
    expectProtocolError(() => decodeData(dec, bad([{ type: "gauge", id: "x", points: [{ timestamp: 1, value: "NaN?" }] }])), /chunk 0/, { session: 1, seq: 9 });
    expectProtocolError(() => decodeData(dec, bad([{ type: "availability", id: "x", points: [{ timestamp: 1, value: "sideways" }] }])), /chunk 0/, { session: 1, seq: 9 });
    expectProtocolError(() => decodeData(dec, bad([{ type: "nope", id: "x", points: [] }])), /chunk 0/, { session: 1, seq: 9 });
    const corrupt = encodeData(enc, { session: 1, seq: 9, sentAt: 1, replay: false, chunks: [new Uint8Array([0xff])] });
    expectProtocolError(() => decodeData(dec, corrupt), /chunk 0 is not valid CBOR/, { session: 1, seq: 9 });
  });

  it("round-trips acks and statuses", () => {
    expect(decodeAck(dec, encodeAck(enc, { session: 2, seqs: [1, 2], rejected: [{ seq: 3, reason: "bad" }] }))).toEqual({ session: 2, seqs: [1, 2], rejected: [{ seq: 3, reason: "bad" }] });
    expect(decodeStatus(dec, encodeStatus(enc, { state: "offline", session: 4, at: 99 }))).toEqual({ state: "offline", session: 4, at: 99 });
    expectProtocolError(() => decodeStatus(dec, enc.encode({ v: 1, kind: "status", state: "maybe", session: 1, at: 1 })), /invalid status/);
    expectProtocolError(() => decodeAck(dec, enc.encode({ v: 1, kind: "ack", session: 1, seqs: ["x"] })), /invalid ack/);
    expect(decodeAck(dec, encodeAck(enc, { session: 2, seqs: [], retry: [4, 5] }))).toEqual({ session: 2, seqs: [], retry: [4, 5] });
    expectProtocolError(() => decodeAck(dec, enc.encode({ v: 1, kind: "ack", session: 1, seqs: [], retry: [0] })), /retry/);
  });
});
