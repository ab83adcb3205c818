import { describe, expect, it } from "vitest";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { encodeChunk, releaseEncoding } from "../../src/protocol/data-encode.ts";
import { RELEASE_MIN_BYTES, releaseBuffer } from "../../src/runtime/release-buffer.ts";

describe("releaseBuffer", () => {
  it("detaches a large buffer of its own: its memory is gone, every view reads as empty", () => {
    const b = Buffer.allocUnsafeSlow(RELEASE_MIN_BYTES * 4);
    const view = b.subarray(10, 20);
    releaseBuffer(b);
    expect(b.byteLength).toBe(0);
    expect(view.byteLength).toBe(0);
    expect((b.buffer as ArrayBuffer & { detached: boolean }).detached).toBe(true);
    // A second release of the same buffer does nothing.
    releaseBuffer(b);
  });

  it("leaves small buffers to the collector", () => {
    const b = new Uint8Array(RELEASE_MIN_BYTES - 1).fill(7);
    releaseBuffer(b);
    expect(b.byteLength).toBe(RELEASE_MIN_BYTES - 1);
    expect(b[0]).toBe(7);
  });

  it("detaches a small buffer when told a lower bound (a sealed chunk's block)", () => {
    const b = new Uint8Array(new ArrayBuffer(14_000)).fill(7);
    releaseBuffer(b, 0);
    expect(b.byteLength).toBe(0);
    expect((b.buffer as ArrayBuffer & { detached: boolean }).detached).toBe(true);
  });
});

describe("releaseEncoding", () => {
  const writes = (n: number) => [{ type: "gauge" as const, id: "some_metric_with_a_long_name{job=\"x\"}", points: Array.from({ length: n }, (_, i) => ({ timestamp: 1_700_000_000_000 + i, value: i / 3 })) }];

  it("frees a large encoding (a buffer of its own) once, and only that", () => {
    const enc = createEncoder();
    const big = encodeChunk(enc, writes(20_000));
    expect(big.byteLength).toBeGreaterThan(256 * 1024);
    const copy = Uint8Array.from(big);
    releaseEncoding(big);
    expect(big.byteLength).toBe(0);
    // The encoder goes on encoding correctly after it.
    const again = encodeChunk(enc, writes(20_000));
    expect(Buffer.compare(again, copy)).toBe(0);
    expect(createDecoder().decode(again)).toEqual(writes(20_000));
  });

  it("leaves a small encoding alone: it shares the encoder's buffer", () => {
    const enc = createEncoder();
    const small = encodeChunk(enc, writes(10));
    const next = encodeChunk(enc, writes(11));
    releaseEncoding(small);
    releaseEncoding(Uint8Array.from(next));
    expect(createDecoder().decode(small)).toEqual(writes(10));
    expect(createDecoder().decode(next)).toEqual(writes(11));
  });
});
