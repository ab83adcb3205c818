import { describe, expect, it } from "vitest";
import { decodePoints, decodePointsInto, encodePoints, inspectBlock, MAX_POINTS } from "../../src/codec/index.ts";
import { STALE_NAN_HI, STALE_NAN_LO } from "../../src/prometheus/staleness.ts";
import { sameBits } from "./arbitraries.ts";

const T0 = 1_763_000_000_000;
const grid = (n: number) => Float64Array.from({ length: n }, (_, i) => T0 + i * 10_000);

describe("point codec", () => {
  it("regular 10 s timestamps and a constant value cost well under a bit per point", () => {
    const n = 1024;
    const bytes = encodePoints({ ts: grid(n), nums: new Float64Array(n).fill(42.5) });
    expect(bytes.length).toBeLessThanOrEqual(40); // 0.3 bit per point, headers and checksum included
    const d = decodePoints(bytes);
    expect(sameBits(d.ts, grid(n))).toBe(true);
    expect(d.nums!.every((v) => v === 42.5)).toBe(true);
  });

  it("regular timestamps with one point off the grid, at any place, decode exactly (the evenly spaced shortcut does not take them)", () => {
    const n = 300;
    const even = encodePoints({ ts: grid(n), nums: new Float64Array(n) }).length;
    for (const at of [...Array.from({ length: 43 }, (_, i) => i * 7), n - 2, n - 1]) {
      const ts = grid(n);
      ts[at]! += 3;
      const bytes = encodePoints({ ts, nums: new Float64Array(n) });
      expect(sameBits(decodePoints(bytes).ts, ts)).toBe(true);
      expect(bytes.length).toBeGreaterThan(even);
    }
  });

  it("keeps timestamps in the order given, duplicates included (sorting is the store's job)", () => {
    const ts = Float64Array.of(30, 10, 10, -5, 2 ** 50, -(2 ** 50), 10);
    const nums = Float64Array.of(1, 2, 3, 4, 5, 6, 7);
    const d = decodePoints(encodePoints({ ts, nums }));
    expect([...d.ts]).toEqual([...ts]);
    expect([...d.nums!]).toEqual([...nums]);
  });

  it("keeps timestamps that are not integer milliseconds (raw) and huge deltas (packed)", () => {
    for (const ts of [Float64Array.of(1.5, -0, 2 ** 60, Number.NaN), Float64Array.of(-(2 ** 50), 2 ** 50, -(2 ** 50), 0)]) {
      const d = decodePoints(encodePoints({ ts, nums: new Float64Array(ts.length) }));
      expect(sameBits(d.ts, ts)).toBe(true);
    }
    expect(inspectBlock(encodePoints({ ts: Float64Array.of(1.5), nums: Float64Array.of(0) })).tsScheme).toBe("raw");
    expect(inspectBlock(encodePoints({ ts: Float64Array.of(-(2 ** 50), 2 ** 50), nums: Float64Array.of(0, 0) })).tsScheme).toBe("delta");
  });

  it("chooses decimal for short decimals (NaN, ±Infinity, −0 kept aside), xor for full-precision floats, raw when nothing is smaller", () => {
    const n = 256;
    const load = Float64Array.from({ length: n }, (_, i) => Math.round(100 + 80 * Math.sin(i / 20)) / 100);
    load[3] = Number.NaN;
    load[9] = Number.NEGATIVE_INFINITY;
    load[10] = -0;
    const ratio = Float64Array.from({ length: n }, (_, i) => 40 + (20 * ((i * 37) % 101)) / 103);
    const bits = new Float64Array(n);
    const w = new Uint32Array(bits.buffer);
    for (let i = 0; i < w.length; i++) w[i] = (Math.imul(i + 1, 2654435761) ^ (i << 13)) >>> 0;
    const cases: [Float64Array, string][] = [
      [load, "decimal"],
      [ratio, "xor"],
      [bits, "raw"],
    ];
    for (const [nums, scheme] of cases) {
      const bytes = encodePoints({ ts: grid(n), nums });
      expect(inspectBlock(bytes).valueScheme).toBe(scheme);
      expect(sameBits(decodePoints(bytes).nums!, nums)).toBe(true);
    }
    // Short decimals cost a fraction of what xor makes of them.
    expect(encodePoints({ ts: grid(n), nums: load }).length * 3).toBeLessThan(encodePoints({ ts: grid(n), nums: load }, { values: "xor" }).length);
  });

  it("keeps the staleness marker's NaN payload (0x7ff0000000000002) bit for bit in every value scheme", () => {
    const n = 128;
    // The payload is set through the words: a NaN read into a number would lose it.
    const withMarkers = (base: (i: number) => number) => {
      const nums = Float64Array.from({ length: n }, (_, i) => base(i));
      const w = new Uint32Array(nums.buffer);
      for (const i of [5, 6, 40, n - 1]) {
        w[2 * i] = STALE_NAN_LO;
        w[2 * i + 1] = STALE_NAN_HI;
      }
      // Another NaN payload next to it stays what it is too.
      w[2 * 20] = 0x1234;
      w[2 * 20 + 1] = 0x7ff80000;
      return nums;
    };
    const decimals = withMarkers((i) => (i % 7) / 4);
    const floats = withMarkers((i) => Math.sqrt(i + 2));
    for (const [nums, values, scheme] of [
      [decimals, "auto", "decimal"],
      [floats, "auto", "xor"],
      [floats, "raw", "raw"],
      [decimals, "xor", "xor"],
    ] as const) {
      const bytes = encodePoints({ ts: grid(n), nums }, { values });
      expect(inspectBlock(bytes).valueScheme).toBe(scheme);
      expect(sameBits(decodePoints(bytes).nums!, nums)).toBe(true);
      const into = new Float64Array(n + 2);
      decodePointsInto(bytes, new Float64Array(n + 2), into, 2);
      expect(sameBits(into.subarray(2), nums)).toBe(true);
      const words = new Uint32Array(into.buffer, 16);
      expect([words[2 * 5], words[2 * 5 + 1]]).toEqual([STALE_NAN_LO, STALE_NAN_HI]);
    }
  });

  it("decodes numeric blocks one after another into one pair of arrays", () => {
    const a = { ts: grid(40), nums: Float64Array.from({ length: 40 }, (_, i) => i * 1.5) };
    const b = { ts: grid(3).map((t) => t + 400_000), nums: Float64Array.of(Number.NaN, -0, 7), tags: [undefined, { k: "v" }, undefined] };
    const ts = new Float64Array(50).fill(-1);
    const nums = new Float64Array(50).fill(-1);
    expect(decodePointsInto(encodePoints(a), ts, nums, 0)).toEqual({ points: 40 });
    expect(decodePointsInto(encodePoints(b), ts, nums, 40)).toEqual({ points: 3, tags: [undefined, { k: "v" }, undefined] });
    expect(sameBits(ts.subarray(0, 43), Float64Array.from([...a.ts, ...b.ts]))).toBe(true);
    expect(sameBits(nums.subarray(0, 43), Float64Array.from([...a.nums, ...b.nums]))).toBe(true);
    expect(ts[43]).toBe(-1);
    expect(() => decodePointsInto(encodePoints(a), ts, nums, 20)).toThrow(RangeError);
    expect(() => decodePointsInto(encodePoints({ ts: grid(1), strs: ["x"] }), ts, nums, 0)).toThrow(TypeError);
  });

  it("describes a block without decoding it", () => {
    const bytes = encodePoints({ ts: grid(3), strs: ["a", "b", "a"], tags: [undefined, { k: "v" }, undefined] });
    expect(inspectBlock(bytes)).toEqual({ version: 1, points: 3, tsScheme: "delta", valueScheme: "dictionary", strings: true, tags: true, bytes: bytes.length });
  });

  it("decodes equal tags as one shared, frozen object", () => {
    const t = { host: "a" };
    const d = decodePoints(encodePoints({ ts: grid(3), nums: new Float64Array(3), tags: [t, { host: "a" }, undefined] }));
    expect(d.tags![0]).toBe(d.tags![1]);
    expect(Object.isFrozen(d.tags![0])).toBe(true);
    expect(d.tags![2]).toBeUndefined();
  });

  it("blocks encoded one after another are independent of the writers reused inside, after a very large block too", () => {
    const peers = (n: number, s: number) => Float64Array.from({ length: n }, (_, j) => (s % 100) + Math.sin(j / 10) * 10);
    const a = encodePoints({ ts: grid(2000), nums: peers(2000, 1) });
    const aCopy = a.slice();
    const huge = encodePoints({ ts: grid(300_000), nums: peers(300_000, 2) }); // beyond what the writers keep
    const b = encodePoints({ ts: grid(7), nums: peers(7, 3) });
    const c = encodePoints({ ts: grid(2000), nums: Float64Array.from({ length: 2000 }, (_, i) => i / 4) }); // decimal
    expect(a).toEqual(aCopy);
    expect(a.buffer).not.toBe(b.buffer);
    expect(sameBits(decodePoints(a).nums!, peers(2000, 1))).toBe(true);
    expect(sameBits(decodePoints(huge).nums!, peers(300_000, 2))).toBe(true);
    expect(sameBits(decodePoints(b).nums!, peers(7, 3))).toBe(true);
    expect(sameBits(decodePoints(c).ts, grid(2000))).toBe(true);
    expect(a.byteLength).toBe(a.buffer.byteLength); // exact size: nothing of the scratch kept alive by a chunk
  });

  it("brings back strings that are not well-formed Unicode when their entries were zstd-compressed", () => {
    // Lone surrogates make the entries UTF-16; enough distinct ones with repeats inside make zstd pay.
    for (const extra of ["", "x"]) {
      const strs = Array.from({ length: 300 }, (_, i) => `state \ud800 of device ${i % 40} ${extra}${"repeated text ".repeat(1 + (i % 3))}`);
      strs.push("", "up", "\u{10000}");
      const ts = Float64Array.from(strs, (_, i) => 1_700_000_000_000 + i * 1000);
      const d = decodePoints(encodePoints({ ts, strs }));
      expect(d.strs).toEqual(strs);
    }
  });

  it("refuses inconsistent columns with a TypeError", () => {
    const ts = grid(2);
    expect(() => encodePoints({ ts, nums: new Float64Array(1) })).toThrow(/2 timestamps but 1 values/);
    expect(() => encodePoints({ ts, nums: new Float64Array(2), strs: ["a", "b"] })).toThrow(TypeError);
    expect(() => encodePoints({ ts })).toThrow(TypeError);
    expect(() => encodePoints({ ts, nums: new Float64Array(2), tags: [undefined] })).toThrow(/2 timestamps but 1 tag entries/);
    expect(() => encodePoints({ ts, nums: new Float64Array(2), tags: [{ a: 1 as unknown as string }, undefined] })).toThrow(/tag "a" of point 0 is not a string/);
    expect(() => encodePoints({ ts, strs: ["a", 3 as unknown as string] })).toThrow(/value 1 of a string block is not a string/);
    const big = new Float64Array(MAX_POINTS + 1);
    expect(() => encodePoints({ ts: big, nums: big })).toThrow(/more than a block holds/);
  });
});
