import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { chunkSchema, decodeData, encodeChunk, encodeData } from "../../src/protocol/messages.ts";
import { isNormalizedChunk } from "../../src/protocol/normalized-chunk.ts";
import { anyChunk } from "../helpers/point-arbitraries.ts";

describe("fast acceptance of normalized chunks", () => {
  it("accepts only what the HTTP write schemas accept, and exactly as they would return it", () => {
    let accepted = 0;
    fc.assert(
      fc.property(anyChunk, (chunk) => {
        const parsed = chunkSchema.safeParse(chunk);
        if (!isNormalizedChunk(chunk)) return;
        accepted++;
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(chunk);
      }),
      { numRuns: 5000 },
    );
    // The generator must reach the accepting side too, or the property says nothing.
    expect(accepted).toBeGreaterThan(1000);
  });

  it("accepts every chunk the agent encodes", () => {
    const writes = [
      { type: "gauge" as const, id: "cpu", points: [{ timestamp: 1000, value: 0.25, tags: { core: "0" } }] },
      { type: "counter" as const, id: "bytes", points: [{ timestamp: 1000, value: 2 ** 40 }] },
      { type: "availability" as const, id: "web", points: [{ timestamp: 1000, value: "unknown" }] },
      { type: "string" as const, id: "log", points: [{ timestamp: 1000, value: "started" }] },
    ];
    const dec = createDecoder();
    expect(isNormalizedChunk(dec.decode(encodeChunk(createEncoder(), writes)))).toBe(true);
  });

  it("still converts lenient values that take the slow path", () => {
    const enc = createEncoder();
    const chunk = encodeChunk(enc, [{ type: "availability", id: " web ", points: [{ timestamp: 1000, value: "UP" as never }] }]);
    const batch = decodeData(createDecoder(), encodeData(enc, { session: 1, seq: 1, sentAt: 0, replay: false, chunks: [chunk] }));
    expect(batch.writes).toEqual([{ type: "availability", id: "web", points: [{ timestamp: 1000, value: "up" }] }]);
  });
});
