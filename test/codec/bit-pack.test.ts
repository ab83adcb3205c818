/**
 * Bit packing at every width, dense, sparse and mixed, starting at every byte offset within a
 * word: unpack decodes whole dense groups at a word boundary with generated straight-line code,
 * the rest with loops, and both must give back exactly what pack wrote.
 */
import { describe, expect, it } from "vitest";
import { pack, unpack } from "../../src/codec/bit-pack.ts";
import { ByteReader, ByteWriter } from "../../src/codec/bytes.ts";
import { readIntColumn, writeIntColumn } from "../../src/codec/int-column.ts";

/** A repeatable pseudo-random sequence (the widths must all be covered on every run). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

describe("bit packing", () => {
  it("gives back every width 1–53, signed and unsigned, whatever the byte offset", () => {
    const rnd = lcg(7);
    for (let width = 1; width <= 53; width++) {
      for (let trial = 0; trial < 16; trial++) {
        const m = Math.floor(rnd() * 200);
        const zz = new Float64Array(m);
        for (let i = 0; i < m; i++) {
          // Dense groups, mostly zeros (sparse groups) or the widest values of the width.
          const mode = trial % 3;
          zz[i] = mode === 1 && rnd() < 0.8 ? 0 : mode === 2 ? Math.max(0, 2 ** width - 1 - (i % 3)) : Math.floor(rnd() * 2 ** width);
        }
        const w = new ByteWriter(16);
        const before = trial % 5;
        for (let j = 0; j < before; j++) w.byte(0xab);
        pack(zz, m, w);
        w.byte(0xcd);
        const bytes = w.finish().slice();
        for (const signed of [false, true]) {
          const r = new ByteReader(bytes, before, bytes.length);
          const out = new Float64Array(m + 3);
          unpack(r, m, out, 3, signed);
          const want = Array.from(zz, (z) => (signed ? (z % 2 === 0 ? z / 2 : -(z + 1) / 2) : z));
          expect(Array.from(out.subarray(3)).map(String), `width ${width}, ${m} values`).toEqual(want.map(String));
          expect(r.pos).toBe(bytes.length - 1);
        }
      }
    }
  });

  it("gives back integer columns in the delta-of-delta form (summed while unpacked) at every width", () => {
    const rnd = lcg(11);
    let secondOrder = 0;
    for (let width = 1; width <= 40; width++) {
      for (let trial = 0; trial < 12; trial++) {
        const n = 2 + Math.floor(rnd() * 300);
        const a = new Float64Array(n);
        let v = Math.floor(rnd() * 1e6) - 5e5;
        let d = Math.floor(rnd() * 1000) - 500;
        const span = 2 ** (width - 1);
        for (let i = 0; i < n; i++) {
          a[i] = v;
          // Runs of steady growth (zero second differences, sparse groups) between noisy ones.
          if (trial % 3 !== 1 || rnd() < 0.2) d += Math.floor(rnd() * span) - Math.floor(span / 2);
          v += d;
        }
        if (a.some((x) => Math.abs(x) > 2 ** 50)) continue;
        const w = new ByteWriter(16);
        w.byte(0xab);
        writeIntColumn(w, a, n);
        const bytes = w.finish().slice();
        if (bytes[1]! === 2) secondOrder++;
        const out = new Float64Array(n + 2);
        const r = new ByteReader(bytes, 1, bytes.length);
        readIntColumn(r, n, out.subarray(2));
        expect(Array.from(out.subarray(2)), `width ${width}, ${n} values`).toEqual(Array.from(a));
        expect(r.pos).toBe(bytes.length);
      }
    }
    expect(secondOrder).toBeGreaterThan(200);
  });
});
