/**
 * The bit writer (src/codec/bit-stream.ts) under the point codec's XOR blocks, which are stored
 * on disk, and the heads' point streams: every width at every bit offset lands on exactly the
 * bits an independent writer (a word index and a bit offset, byte by byte here) puts there,
 * including writes that end on a word's edge and 32-bit writes at offset 0.
 */
import { describe, expect, it } from "vitest";
import { BitWriter } from "../../src/codec/bit-stream.ts";
import { uniform } from "../helpers/series.ts";

/** The reference: bit i of the output is byte i >> 3's bit i & 7, written one bit at a time. */
class ReferenceBits {
  readonly bytes = new Uint8Array(4096);
  length = 0;
  write(v: number, n: number): void {
    for (let b = 0; b < n; b++, this.length++) if ((v >>> b) & 1) this.bytes[this.length >> 3]! |= 1 << (this.length & 7);
  }
}

describe("BitWriter", () => {
  it("writes every width from every bit offset exactly as a bit-by-bit writer, across word edges", () => {
    const r = uniform(7);
    for (let offset = 0; offset < 32; offset++) {
      for (let n = 1; n <= 32; n++) {
        const w = new BitWriter(0);
        const ref = new ReferenceBits();
        // Fill to the offset, then the write under test, then one more to see nothing spilled.
        const lead = Math.floor(r() * 2 ** 32);
        if (offset > 0) {
          w.write(lead, offset);
          ref.write(lead, offset);
        }
        const v = Math.floor(r() * 2 ** 32) | 0;
        w.write(v, n);
        ref.write(v, n);
        const tail = Math.floor(r() * 2 ** 32);
        w.write(tail, 32);
        ref.write(tail, 32);
        expect(w.bitLength).toBe(offset + n + 32);
        expect([...w.bytes()]).toEqual([...ref.bytes.subarray(0, (ref.length + 7) >> 3)]);
      }
    }
  });

  it("starts again from nothing after reset, with no bit of before left", () => {
    const w = new BitWriter(2);
    for (let i = 0; i < 100; i++) w.write(0xffffffff, 31);
    w.reset(0);
    expect(w.bitLength).toBe(0);
    w.write(0b101, 3);
    w.write(1, 30);
    expect([...w.bytes()]).toEqual([0b1101, 0, 0, 0, 0]);
  });
});
