import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/metrics/limits.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { ChunkColumnsReader, DataColumns, type TypeColumns } from "../../src/protocol/chunk-columns.ts";
import { CHUNK_FORMAT, type DecodedBatch, decodeData, encodeChunk, encodeData, MARKERS_FLAG } from "../../src/protocol/messages.ts";
import { anyWrite, validWrite } from "../helpers/point-arbitraries.ts";

const enc = createEncoder();
const dec = createDecoder();
const reader = new ChunkColumnsReader();
const out = new DataColumns();

/** Writes in the agent's shape (no tags), with values and timestamps at and past what the checks accept. */
const plainWrite = fc.record({
  type: fc.constantFrom("gauge", "counter"),
  id: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom("m", "x.y", "cpu:0", "é.ü", "i".repeat(LIMITS.metricIdLength)) },
    { weight: 1, arbitrary: fc.constantFrom(" m", "", "m\u00a0", "i".repeat(LIMITS.metricIdLength + 1)) },
  ),
  points: fc.array(
    fc.record({
      timestamp: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 2 ** 42 }) }, fc.constantFrom(1.5, -5, 2 ** 53, LIMITS.maxTimestamp, LIMITS.maxTimestamp + 1, LIMITS.minTimestamp, 2 ** 32, 2 ** 32 - 1)),
      value: fc.oneof({ weight: 8, arbitrary: fc.integer() }, fc.double(), fc.maxSafeInteger(), fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, 2 ** 53, -(2 ** 31), -(2 ** 33))),
    }),
    { minLength: 0, maxLength: 4 },
  ),
});
const chunkArb = fc.oneof(
  { weight: 8, arbitrary: fc.array(plainWrite, { minLength: 0, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(fc.oneof(validWrite, anyWrite, plainWrite), { minLength: 1, maxLength: 3 }) },
);

function batchOf(chunks: Uint8Array[], markers: boolean): Uint8Array {
  return encodeData(enc, { session: 1, seq: 1, sentAt: 0, replay: false, chunks, formats: markers ? chunks.map(() => CHUNK_FORMAT.cbor | MARKERS_FLAG) : undefined });
}

function attempt(f: () => DecodedBatch): DecodedBatch | string {
  try {
    return f();
  } catch (e) {
    return String(e);
  }
}

/** The columns as writes of one type, in order. */
function writesOf(type: "gauge" | "counter", c: TypeColumns): MetricWrite[] {
  const w: MetricWrite[] = [];
  let o = 0;
  for (let k = 0; k < c.entries; k++) {
    const points = [];
    for (let i = 0; i < c.counts[k]!; i++, o++) points.push({ timestamp: c.ts[o]!, value: c.values[o]! });
    w.push({ type, id: c.ids[k]!, points });
  }
  return w;
}

/** Checks one payload: the columns, when taken, hold exactly what the general path decodes. */
function check(payload: Uint8Array): boolean {
  const general = attempt(() => decodeData(dec, payload));
  const fast = attempt(() => decodeData(dec, payload, { reader, out }));
  if (typeof fast === "string" || !fast.columns) {
    expect(fast).toEqual(general);
    return false;
  }
  expect(typeof general).not.toBe("string");
  const g = general as DecodedBatch;
  expect(fast.points).toBe(g.points);
  for (const type of ["gauge", "counter"] as const) {
    const expected = g.writes.filter((w) => w.type === type);
    // toEqual tells NaN from NaN as equal and -0 from 0 apart, as Object.is does.
    expect(writesOf(type, fast.columns[type])).toEqual(expected);
  }
  return true;
}

describe("MQTT data chunks read into columns", () => {
  it("take only what the general path accepts, with the same ids, timestamps and values", () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.array(chunkArb, { minLength: 1, maxLength: 2 }), fc.boolean(), (chunks, markers) => {
        if (check(batchOf(chunks.map((c) => encodeChunk(enc, c as MetricWrite[])), markers))) taken++;
      }),
      { numRuns: 4000 },
    );
    expect(taken).toBeGreaterThan(300);
  });

  it("never take a damaged chunk the general path would refuse or read otherwise", () => {
    const writes: MetricWrite[] = [
      { type: "gauge", id: "cpu", points: [{ timestamp: 1_700_000_000_000, value: 0.5 }, { timestamp: 1_700_000_000_100, value: 2 }] },
      { type: "counter", id: "bytes", points: [{ timestamp: 1_700_000_000_000, value: 2 ** 40 }] },
    ];
    const chunk = encodeChunk(enc, writes);
    let taken = 0;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(chunk.length - 1), fc.nat(255)), { minLength: 1, maxLength: 3 }), fc.boolean(), (edits, markers) => {
        // A copy (Buffer's slice is a view).
        const bad = new Uint8Array(chunk);
        for (const [at, byte] of edits) bad[at] = byte;
        if (check(batchOf([bad], markers))) taken++;
      }),
      { numRuns: 4000 },
    );
    // Some edits only change a value or a timestamp: the columns take those too.
    expect(taken).toBeGreaterThan(0);
  });

  it("take an agent's batch whole: 200 series, 5,000 points, ids decoded once", () => {
    const writes: MetricWrite[] = Array.from({ length: 200 }, (_, s) => ({
      type: s % 2 ? "counter" : "gauge",
      id: `host.metric${s}`,
      points: Array.from({ length: 25 }, (_, j) => ({ timestamp: 1_700_000_000_000 + j * 10_000, value: s % 2 ? j * 1000 : j / 3 })),
    }));
    const payload = batchOf([encodeChunk(enc, writes)], false);
    expect(check(payload)).toBe(true);
    expect(out.gauge.entries + out.counter.entries).toBe(200);
    const firstId = out.gauge.ids[0];
    expect(check(payload)).toBe(true);
    // The same string again: looked up by its bytes, not decoded anew.
    expect(out.gauge.ids[0]).toBe(firstId);
  });
});
