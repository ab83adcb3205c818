import { describe, expect, it } from "vitest";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { encodeChunk } from "../../src/protocol/data-encode.ts";
import { encodeSized, releaseEncoding } from "../../src/protocol/sized-encoding.ts";
import { encodePointChunk } from "../../src/protocol/point-chunk.ts";
import { ChunkColumnsReader, DataColumns } from "../../src/protocol/chunk-columns.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";

/** A small seeded generator, so a failure names its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const NUMBERS = [0, 1, 23, 24, 255, 256, 65_535, 65_536, 2 ** 31, 2 ** 32 - 1, 2 ** 32, -1, -24, -25, -256, -257, -65_536, -65_537, -(2 ** 31), -(2 ** 31) - 1, -(2 ** 32), -(2 ** 32) - 1, 0.5, -0, 1e300, -1e-300, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1_764_387_600_123, 2 ** 53 - 1, 1 / 3];
const CHARS = ["a", "{", "\"", "é", "ÿ", "Ā", "€", "日", "😀", "\ud800", "\udc00", "_", "9"];

function randomId(r: () => number): string {
  const len = [1, 5, 23, 24, 31, 32, 63, 64, 65, 130, 255, 256, 300][Math.floor(r() * 13)]!;
  const plain = r() < 0.6;
  let s = "";
  while (s.length < len) s += plain ? String.fromCharCode(97 + Math.floor(r() * 26)) : CHARS[Math.floor(r() * CHARS.length)]!;
  return s;
}

function randomNumber(r: () => number): number {
  const k = r();
  if (k < 0.4) return NUMBERS[Math.floor(r() * NUMBERS.length)]!;
  if (k < 0.6) return Math.floor((r() - 0.5) * 2 ** Math.floor(r() * 40));
  return (r() - 0.5) * 10 ** Math.floor(r() * 20 - 10);
}

function randomWrites(r: () => number): MetricWrite[] {
  const n = [0, 1, 2, 23, 24, 300, 70_000][Math.floor(r() * (r() < 0.05 ? 7 : 6))]!;
  return Array.from({ length: n }, () => ({
    type: r() < 0.8 ? ("gauge" as const) : ("counter" as const),
    id: randomId(r),
    points: Array.from({ length: r() < 0.8 ? 1 : Math.floor(r() * 30) }, () => ({ timestamp: randomNumber(r), value: randomNumber(r) })),
  }));
}

describe("encodePointChunk", () => {
  const enc = createEncoder();
  const viaCborX = (w: unknown) => Uint8Array.from(encodeSized(enc, w, 0));

  it("writes exactly the bytes cbor-x writes for writes of numbers (random shapes, numbers and ids)", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const writes = randomWrites(random(seed));
      const ours = encodePointChunk(writes);
      expect(ours, `seed ${seed}`).toBeDefined();
      expect(Buffer.compare(ours!, viaCborX(writes)), `seed ${seed}`).toBe(0);
    }
  });

  it("writes a scrape's chunk as cbor-x does, which the collector reads into columns", () => {
    const stamp = 1_764_387_600_000;
    const writes: MetricWrite[] = Array.from({ length: 5000 }, (_, i) => ({ type: "gauge", id: `synthetic_requests_total{code="200",feed="web-1",instance="127.0.0.1:9100",instance_id="${i}",job="synthetic"}`, points: [{ timestamp: stamp, value: i % 7 === 0 ? i + 0.5 : i }] }));
    const ours = encodePointChunk(writes)!;
    expect(Buffer.compare(ours, viaCborX(writes))).toBe(0);
    expect(ours.byteLength).toBeGreaterThan(256 * 1024);
    expect(createDecoder().decode(ours)).toEqual(writes);
    const cols = new DataColumns();
    expect(new ChunkColumnsReader().read(ours, false, cols)).toBe(true);
    expect(cols.gauge.points).toBe(5000);
    // A large chunk has a buffer of its own, freed once committed.
    releaseEncoding(ours);
    expect(ours.byteLength).toBe(0);
  });

  it("writes a write as {type, id, points} whatever its key order or other keys, as encodeChunk's cbor-x path does", () => {
    const odd = [{ id: "b", points: [{ timestamp: 1, value: 2 }], type: "gauge", note: "x" }, { type: "counter", id: "c", points: [{ timestamp: 3, value: 4 }] }] as unknown as MetricWrite[];
    const normalized = odd.map((w) => ({ type: w.type, id: w.id, points: w.points }));
    expect(Buffer.compare(encodePointChunk(odd)!, viaCborX(normalized))).toBe(0);
    expect(Buffer.compare(encodeChunk(enc, odd), viaCborX(normalized))).toBe(0);
    // The same on the cbor-x path (a string metric is not written by hand).
    const strings = [{ points: [{ timestamp: 1, value: "x" }], id: "s", type: "string", extra: 1 }] as unknown as MetricWrite[];
    expect(Buffer.compare(encodeChunk(enc, strings), viaCborX([{ type: "string", id: "s", points: [{ timestamp: 1, value: "x" }] }]))).toBe(0);
  });

  it("leaves every other shape to cbor-x", () => {
    const p = { timestamp: 1, value: 2 };
    const others: unknown[] = [
      [{ type: "string", id: "s", points: [{ timestamp: 1, value: "x" }] }],
      [{ type: "availability", id: "a", points: [{ timestamp: 1, value: "up" }] }],
      [{ type: "gauge", id: "g", points: [{ timestamp: 1, value: 2, tags: { a: "b" } }] }],
      [{ type: "gauge", id: "g", points: [{ value: 2, timestamp: 1 }] }],
      [{ type: "gauge", id: "g", points: [{ timestamp: 1 }] }],
      [{ type: "gauge", id: "g", points: [{ timestamp: "1", value: 2 }] }],
      [{ type: "gauge", id: "g", points: [new Map([["timestamp", 1]])] }],
      [{ type: "gauge", id: 7, points: [p] }],
      [{ type: "gauge", id: "g", points: new Float64Array(2) }],
      [{ type: "gauge", id: "g", points: [p, null] }],
    ];
    for (const w of others) expect(encodePointChunk(w as MetricWrite[]), JSON.stringify(w)).toBeUndefined();
  });
});
