import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { STALE_NAN } from "../../src/prometheus/staleness.ts";
import { CHUNK_FORMAT, decodeData, decodeSeriesChunk, encodeChunk, encodeData, encodeSeriesChunk, MARKERS_FLAG, ProtocolError, SeriesChunkError } from "../../src/protocol/messages.ts";

const enc = createEncoder();
const dec = createDecoder();
const writes: MetricWrite[] = [
  { type: "gauge", id: "cpu", points: [{ timestamp: 1000, value: 1.5 }, { timestamp: 2000, value: -0.25, tags: { k: "v" } }] },
  { type: "availability", id: "web", points: [{ timestamp: 1000, value: "up" }, { timestamp: 2000, value: "unknown" }, { timestamp: 3000, value: "down" }] },
  { type: "counter", id: "req", points: [{ timestamp: 1000, value: 42 }] },
  { type: "string", id: "log", points: [{ timestamp: 1000, value: "hello \ud800" }] },
  { type: "gauge", id: "cpu", points: [{ timestamp: 1500, value: 3 }] },
];

function batch(chunks: Uint8Array[], formats?: number[]) {
  return encodeData(enc, { session: 2, seq: 5, sentAt: 9, replay: true, chunks, formats });
}

function protocolError(f: () => unknown): ProtocolError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ProtocolError);
    return e as ProtocolError;
  }
  throw new Error("expected a ProtocolError");
}

describe("series chunks (data v2)", () => {
  it("groups writes per series in write order and decodes them back exactly", () => {
    const out = decodeSeriesChunk(dec, encodeSeriesChunk(enc, writes));
    expect(out).toEqual([{ ...writes[0]!, points: [...writes[0]!.points, ...writes[4]!.points] }, writes[1], writes[2], writes[3]]);
  });

  it("keeps any gauge, counter, timestamp order and duplicates (property)", () => {
    const point = fc.record({ timestamp: fc.integer({ min: -(2 ** 45), max: 2 ** 45 }), value: fc.double({ noNaN: true, noDefaultInfinity: true }) });
    fc.assert(
      fc.property(fc.array(point, { minLength: 1, maxLength: 200 }), fc.array(fc.integer({ min: -(2 ** 52), max: 2 ** 52 }), { minLength: 1, maxLength: 50 }), (pts, counts) => {
        const w: MetricWrite[] = [
          { type: "gauge", id: "g", points: pts },
          { type: "counter", id: "c", points: counts.map((v, i) => ({ timestamp: 5 - (i % 3), value: v })) },
        ];
        const back = decodeSeriesChunk(dec, encodeSeriesChunk(enc, w));
        expect(back.map((x) => x.points.map((p) => [p.timestamp, Object.is(p.value, -0) ? "-0" : p.value]))).toEqual(
          w.map((x) => x.points.map((p) => [p.timestamp, Object.is(p.value, -0) ? "-0" : p.value])),
        );
      }),
      { numRuns: 200 },
    );
  });

  it("sends a batch with a series chunk as version 2 and a batch of CBOR chunks alone as version 1", () => {
    const v2 = batch([encodeChunk(enc, writes.slice(0, 1)), encodeSeriesChunk(enc, writes.slice(1))], [CHUNK_FORMAT.cbor, CHUNK_FORMAT.series]);
    expect((dec.decode(v2) as { v: number }).v).toBe(2);
    const b = decodeData(dec, v2);
    expect(b).toMatchObject({ session: 2, seq: 5, replay: true, points: 8 });
    expect(b.writes.map((w) => `${w.type}:${w.id}:${w.points.length}`)).toEqual(["gauge:cpu:2", "availability:web:3", "counter:req:1", "string:log:1", "gauge:cpu:1"]);
    expect((dec.decode(batch([encodeChunk(enc, writes)], [1])) as { v: number }).v).toBe(1);
  });

  it("refuses a batch whose block is corrupt, naming the batch so the agent drops it, never storing other points", () => {
    const good = encodeSeriesChunk(enc, writes);
    const entries = dec.decode(good) as [string, string, Uint8Array][];
    for (const at of [0, 5, entries[1]![2].length - 1]) {
      const damaged = entries.map(([t, id, block], i) => {
        if (i !== 1) return [t, id, block];
        const copy = block.slice();
        copy[at]! ^= 0x10;
        return [t, id, copy];
      });
      const e = protocolError(() => decodeData(dec, batch([enc.encode(damaged)], [2])));
      expect(e.message).toMatch(/invalid chunk 0: series 1 \("web"\): (corrupt point block|unsupported point block version)/);
      expect(e.batch).toEqual({ session: 2, seq: 5 });
    }
    const cut = entries.map(([t, id, block]) => [t, id, block.subarray(0, block.length - 1)]);
    expect(protocolError(() => decodeData(dec, batch([enc.encode(cut)], [2]))).message).toMatch(/truncated or extended|corrupt/);
    expect(() => decodeSeriesChunk(dec, enc.encode([["gauge", "x", "not a block"]]))).toThrow(SeriesChunkError);
  });

  it("validates decoded points like any chunk and checks the version 2 fields", () => {
    const strings = encodeSeriesChunk(enc, [{ type: "string", id: "s", points: [{ timestamp: 1, value: "x" }] }]);
    const asGauge = enc.encode((dec.decode(strings) as unknown[][]).map(([, id, b]) => ["gauge", id, b]));
    expect(protocolError(() => decodeData(dec, batch([asGauge], [2]))).message).toMatch(/cannot hold strings/);
    const gauge = encodeSeriesChunk(enc, [{ type: "counter", id: "c", points: [{ timestamp: 1, value: 1.5 }] }]);
    expect(protocolError(() => decodeData(dec, batch([gauge], [2]))).message).toMatch(/invalid chunk 0/);
    const ok = encodeSeriesChunk(enc, writes);
    const raw = (o: Record<string, unknown>) => enc.encode({ v: 2, kind: "data", session: 1, seq: 1, sentAt: 1, replay: false, chunks: [ok], ...o });
    expect(protocolError(() => decodeData(dec, raw({}))).message).toMatch(/fmts/);
    expect(protocolError(() => decodeData(dec, raw({ fmts: [2, 2] }))).message).toMatch(/fmts/);
    expect(protocolError(() => decodeData(dec, raw({ fmts: [7] }))).message).toMatch(/fmts/);
    expect(protocolError(() => decodeData(dec, raw({ v: 1, fmts: [2] }))).message).toMatch(/fmts/);
  });
});

describe("staleness markers (data v3)", () => {
  const marked: MetricWrite[] = [
    { type: "gauge", id: "up", points: [{ timestamp: 1000, value: 1 }, { timestamp: 2000, value: STALE_NAN }] },
    { type: "counter", id: "req", points: [{ timestamp: 2000, value: STALE_NAN }] },
  ];

  it("sends chunks flagged as holding markers in a version 3 batch, with their plain formats, and reads the markers back", () => {
    const bytes = batch([encodeChunk(enc, marked), encodeSeriesChunk(enc, marked)], [CHUNK_FORMAT.cbor | MARKERS_FLAG, CHUNK_FORMAT.series | MARKERS_FLAG]);
    expect(dec.decode(bytes)).toMatchObject({ v: 3, fmts: [1, 2] });
    const b = decodeData(dec, bytes);
    expect(b.points).toBe(6);
    expect(b.writes.map((w) => w.points.map((p) => p.value))).toEqual([[1, Number.NaN], [Number.NaN], [1, Number.NaN], [Number.NaN]]);
    // Without any flag the batch stays version 1 or 2.
    expect((dec.decode(batch([encodeChunk(enc, writes)], [CHUNK_FORMAT.cbor])) as { v: number }).v).toBe(1);
  });

  it("accepts a marker only in version 3, only for gauges and counters, and no infinity in any version", () => {
    const v = (version: number, chunk: unknown) => enc.encode({ v: version, kind: "data", session: 1, seq: 3, sentAt: 0, replay: false, chunks: [enc.encode(chunk)], ...(version > 1 ? { fmts: [1] } : {}) });
    for (const version of [1, 2]) expect(protocolError(() => decodeData(dec, v(version, marked))).batch).toEqual({ session: 1, seq: 3 });
    expect(protocolError(() => decodeData(dec, v(3, [{ type: "gauge", id: "g", points: [{ timestamp: 1, value: Number.POSITIVE_INFINITY }] }]))).message).toMatch(/invalid chunk 0/);
    expect(() => decodeData(dec, v(3, [{ type: "availability", id: "a", points: [{ timestamp: 1, value: Number.NaN }] }]))).toThrow(ProtocolError);
    // The lenient path (a timestamp as a string of digits) takes markers too.
    const lenient = decodeData(dec, v(3, [{ type: "gauge", id: "g", points: [{ timestamp: "5", value: Number.NaN }] }]));
    expect(lenient.writes[0]!.points).toEqual([{ timestamp: 5, value: Number.NaN }]);
    // Version 3 gives each chunk's format, as version 2 does.
    const noFmts = enc.encode({ v: 3, kind: "data", session: 1, seq: 4, sentAt: 0, replay: false, chunks: [enc.encode(marked)] });
    expect(protocolError(() => decodeData(dec, noFmts)).message).toMatch(/fmts must give the format of each chunk/);
  });
});
