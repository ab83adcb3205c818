import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodePoints, encodePoints, inspectBlock, PointCodecError } from "../../src/codec/index.ts";
import { sameBits } from "./arbitraries.ts";

/** One block of every layout: each timestamp and value scheme, strings (UTF-8, UTF-16, compressed), tags. */
function samples(): [string, Uint8Array][] {
  const n = 100;
  const grid = Float64Array.from({ length: n }, (_, i) => 1.7e12 + i * 10_000);
  const jitter = grid.map((t, i) => t + ((i * 7) % 13));
  let c = 5e9;
  const counter = Float64Array.from({ length: n }, (_, i) => (c += 4096 * ((i * 31) % 17)));
  const decimals = Float64Array.from({ length: n }, (_, i) => (i % 10 === 3 ? Number.NaN : Math.round(50 + 30 * Math.sin(i / 7)) / 100));
  const ratios = Float64Array.from({ length: n }, (_, i) => 40 + (20 * ((i * 37) % 101)) / 103);
  const log = Array.from({ length: n }, (_, i) => `request ${i % 7} served in ${(i * 13) % 50} ms by worker ${i % 3}`);
  const blocks: [string, Uint8Array][] = [
    ["decimal counter, jittery timestamps", encodePoints({ ts: jitter, nums: counter })],
    ["decimal with NaN exceptions", encodePoints({ ts: grid, nums: decimals })],
    ["xor", encodePoints({ ts: grid, nums: ratios })],
    ["raw values", encodePoints({ ts: grid, nums: ratios }, { values: "raw" })],
    ["raw timestamps", encodePoints({ ts: grid.map((t) => t + 0.5), nums: counter })],
    ["strings", encodePoints({ ts: grid, strs: Array.from(grid, (_, i) => ["up", "down", "état"][i % 3]!) })],
    ["UTF-16 strings", encodePoints({ ts: grid, strs: Array.from(grid, (_, i) => (i % 2 ? "a\ud800" : "b")) })],
    ["zstd strings", encodePoints({ ts: grid, strs: log })],
    ["tags", encodePoints({ ts: grid, nums: counter, tags: Array.from({ length: n }, (_, i) => (i % 4 ? undefined : { host: `h${i % 3}`, dc: "eu" })) })],
    ["one point", encodePoints({ ts: Float64Array.of(5), nums: Float64Array.of(-0) })],
    ["empty", encodePoints({ ts: new Float64Array(0), nums: new Float64Array(0) })],
  ];
  return blocks;
}

function expectRejected(bytes: Uint8Array): void {
  expect(() => decodePoints(bytes)).toThrow(PointCodecError);
}

describe("point codec corruption", () => {
  const blocks = samples();

  it("covers every layout", () => {
    const schemes = new Set(blocks.map(([, b]) => `${inspectBlock(b).tsScheme}/${inspectBlock(b).valueScheme}`));
    expect(schemes).toEqual(new Set(["delta/decimal", "delta/xor", "delta/raw", "raw/decimal", "delta/dictionary"]));
    expect(blocks.some(([, b]) => inspectBlock(b).tags)).toBe(true);
    // The log lines only fit this small when their dictionary went through zstd.
    const zstd = blocks.find(([name]) => name === "zstd strings")![1];
    expect(zstd.length).toBeLessThan(1500);
  });

  it.each(blocks)("%s: every single-bit flip is detected", (_, block) => {
    for (let i = 0; i < block.length * 8; i++) {
      const bad = block.slice();
      bad[i >>> 3]! ^= 1 << (i & 7);
      expectRejected(bad);
    }
  });

  it.each(blocks)("%s: every truncation and an appended byte are detected", (_, block) => {
    for (let len = 0; len < block.length; len++) expectRejected(block.subarray(0, len));
    const longer = new Uint8Array(block.length + 1);
    longer.set(block);
    expectRejected(longer);
  });

  it("random damage is detected or changes nothing", () => {
    fc.assert(
      fc.property(fc.constantFrom(...blocks), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 8 }), ([, block], hits) => {
        const bad = block.slice();
        for (const [at, x] of hits) bad[at % bad.length]! ^= x;
        let d: ReturnType<typeof decodePoints>;
        try {
          d = decodePoints(bad);
        } catch (e) {
          expect(e).toBeInstanceOf(PointCodecError);
          return;
        }
        // Only possible when the hits cancelled out: the points must then be the original ones.
        const o = decodePoints(block);
        expect(sameBits(d.ts, o.ts)).toBe(true);
        expect(d).toEqual(o);
      }),
      { numRuns: 2000 },
    );
  });

  it("a malformed block that passes the checksum (a writer's bug) fails with PointCodecError, never another error", () => {
    fc.assert(
      fc.property(fc.constantFrom(...blocks), fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 4 }), ([, block], hits) => {
        const bad = block.slice();
        // Leave version and length alone (they are checked before the checksum), then re-seal.
        for (const [at, x] of hits) if (bad.length > 8) bad[4 + (at % (bad.length - 8))] = x;
        new DataView(bad.buffer).setUint32(bad.length - 4, Bun.hash.crc32(bad.subarray(0, bad.length - 4)), true);
        try {
          decodePoints(bad);
        } catch (e) {
          expect(e).toBeInstanceOf(PointCodecError);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("the error says what is wrong", () => {
    const [, block] = blocks[0]!;
    const flipped = block.slice();
    flipped[10]! ^= 4;
    expect(() => decodePoints(flipped)).toThrow(/corrupt point block: checksum mismatch/);
    expect(() => decodePoints(block.subarray(0, block.length - 3))).toThrow(/truncated or extended/);
    const future = block.slice();
    future[0] = 9;
    expect(() => decodePoints(future)).toThrow(/unsupported point block version 9/);
  });
});
