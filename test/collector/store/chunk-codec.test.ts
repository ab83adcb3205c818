/**
 * The store's chunk blobs (collector/store/metrics/chunk-codec.ts) decode from any byte view: a
 * blob that is not 8-byte aligned is copied, also when it is a Node Buffer, whose slice() is a
 * view of the same memory rather than a copy.
 */
import { describe, expect, it } from "vitest";
import { decodeChunk, encodeChunk } from "../../../collector/store/metrics/chunk-codec.ts";

/** `b` inside a larger Buffer at an offset that is not a multiple of 8. */
function unalignedBuffer(b: Uint8Array, offset: number): Buffer {
  const whole = Buffer.alloc(b.length + offset + 5, 0xff);
  whole.set(b, offset);
  return whole.subarray(offset, offset + b.length);
}

describe("chunk blobs", () => {
  it("decode from unaligned Buffers as from aligned arrays", () => {
    const ts = Float64Array.from({ length: 50 }, (_, i) => 1_700_000_000_000 + i * 10_000);
    const nums = Float64Array.from({ length: 50 }, (_, i) => i * 0.25 - 3);
    const blobs = encodeChunk({ ts, nums });
    for (const offset of [1, 3, 4]) {
      const run = decodeChunk({ ts: unalignedBuffer(blobs.ts, offset), vals: unalignedBuffer(blobs.vals, offset), tags: null }, true);
      expect([...run.ts]).toEqual([...ts]);
      expect([...run.nums!]).toEqual([...nums]);
    }
  });
});
