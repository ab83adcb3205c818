import { describe, expect, it } from "vitest";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { decodeDefinitionsChunk, encodeDefinitionsChunk } from "../../src/protocol/definitions-chunk.ts";
import { CHUNK_FORMAT, decodeData, encodeChunk, encodeData, ProtocolError } from "../../src/protocol/messages.ts";

const enc = createEncoder();
const dec = createDecoder();
const def = { type: "gauge" as const, id: 'up{feed="f",instance="h:9100",job="node"}', tags: { feed: "f", instance: "h:9100", job: "node", metric: "up" } };

describe("definitions chunks (format 3)", () => {
  it("travel in a version 4 batch beside the points, which they do not count", () => {
    const payload = encodeData(enc, {
      session: 1,
      seq: 1,
      sentAt: 1,
      replay: false,
      chunks: [encodeDefinitionsChunk(enc, [def]), encodeChunk(enc, [{ type: "gauge", id: def.id, points: [{ timestamp: 1000, value: 1 }] }])],
      formats: [CHUNK_FORMAT.definitions, CHUNK_FORMAT.cbor],
    });
    expect((dec.decode(payload) as { v: number }).v).toBe(4);
    const b = decodeData(dec, payload);
    expect(b.definitions).toEqual([def]);
    expect(b.points).toBe(1);
    expect(b.writes).toEqual([{ type: "gauge", id: def.id, points: [{ timestamp: 1000, value: 1 }] }]);
  });

  it("a bad definition refuses the batch, naming it", () => {
    const bad = (entries: unknown) => {
      const payload = encodeData(enc, { session: 1, seq: 7, sentAt: 1, replay: false, chunks: [enc.encode(entries)], formats: [CHUNK_FORMAT.definitions] });
      expect((dec.decode(payload) as { v: number }).v).toBe(4);
      try {
        decodeData(dec, payload);
      } catch (e) {
        expect(e).toBeInstanceOf(ProtocolError);
        expect((e as ProtocolError).batch).toEqual({ session: 1, seq: 7 });
        return (e as Error).message;
      }
      throw new Error("accepted");
    };
    expect(bad([["gauge", "x", { a: 1 }]])).toMatch(/chunk 0: definition 0: tag values are strings/);
    expect(bad([["nope", "x", {}]])).toMatch(/expected \[type, id, tags\]/);
    expect(bad([["gauge", "x".repeat(2000), {}]])).toMatch(/at most 1024/);
    expect(bad([])).toMatch(/non-empty array/);
    // Format 3 in an older version: refused (its collector would not have set the labels).
    const v2 = enc.encode({ v: 2, kind: "data", session: 1, seq: 7, sentAt: 1, replay: false, chunks: [encodeDefinitionsChunk(enc, [def])], fmts: [CHUNK_FORMAT.definitions] });
    expect(() => decodeData(dec, v2)).toThrow(/come in version 4 batches/);
    expect(() => decodeDefinitionsChunk(dec, new Uint8Array([0xff]))).toThrow(/not valid CBOR/);
  });
});

describe("large encodings", () => {
  it("get a buffer of their own, and the encoder goes on with a small one, strings and all", async () => {
    const { encodeChunk } = await import("../../src/protocol/data-encode.ts");
    const encodeBig = (e: ReturnType<typeof createEncoder>, v: unknown) => encodeChunk(e, v as never);
    const e = createEncoder();
    // Ids of many non-ASCII characters: more bytes than the estimate, so the buffer must grow.
    const big = Array.from({ length: 5000 }, (_, i) => ({ type: "gauge", id: `series_${i}{label="${(i % 2 ? "x" : "é").repeat(60)}"}`, points: [{ timestamp: i, value: i / 3 }] }));
    const first = encodeBig(e, big);
    expect(first.byteLength).toBeGreaterThan(256 * 1024);
    const small = encodeBig(e, [{ type: "string", id: "é-ü", points: [{ timestamp: 1, value: "naïve ✓" }] }]);
    const again = encodeBig(e, big);
    expect(dec.decode(first)).toEqual(big);
    expect(dec.decode(small)).toEqual([{ type: "string", id: "é-ü", points: [{ timestamp: 1, value: "naïve ✓" }] }]);
    expect(dec.decode(again)).toEqual(big);
  });
});
