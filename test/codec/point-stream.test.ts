/**
 * The point stream (src/codec/point-stream.ts): points appended one at a time decode back bit
 * for bit, across every width of the timestamp step's change (at each bucket's edges) and every
 * kind of float64; timestamps it cannot encode are refused without changing what it holds.
 */
import { describe, expect, it } from "vitest";
import { PointStream } from "../../src/codec/point-stream.ts";
import { uniform } from "../helpers/series.ts";

const bits = (xs: ArrayLike<number>) => Array.from(xs, (x) => Buffer.from(Float64Array.of(x).buffer).toString("hex"));

/** The points of a stream that holds `n` (the stream does not count them: its owner does). */
function decoded(s: PointStream, n: number): { ts: number[]; nums: number[] } {
  const ts = new Float64Array(n + 1);
  const nums = new Float64Array(n + 1);
  expect(s.decodeStream(ts, nums, 1)).toBe(n);
  return { ts: [...ts.subarray(1)], nums: [...nums.subarray(1)] };
}

/** A float64 from raw bits (NaN payloads included). */
function fromBits(r: () => number): number {
  const u = new Uint32Array([Math.floor(r() * 2 ** 32), Math.floor(r() * 2 ** 32)]);
  return new Float64Array(u.buffer)[0]!;
}

// The change of step at the edges of each width, and past the widest.
const EDGES = [0, 1, -1, 7, 8, 9, -7, -8, 127, 128, 129, -127, -128, 4095, 4096, 4097, -4095, -4096, 2 ** 31 - 1, -(2 ** 31 - 1)];

describe("point stream", () => {
  it("decodes what was appended, bit for bit, on random series", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const r = uniform(seed);
      const s = new PointStream();
      const want = { ts: [] as number[], nums: [] as number[] };
      let t = Math.floor(r() * 2 ** 42);
      let step = 1000;
      let v = Math.floor(r() * 1000);
      const n = 1 + Math.floor(r() * 600);
      for (let i = 0; i < n; i++) {
        const x = r();
        if (i > 0) {
          // The first step is encoded as a change from 0: kept small here (a larger one is refused below).
          const change = i === 1 ? 0 : x < 0.3 ? EDGES[Math.floor(r() * EDGES.length)]! : x < 0.8 ? 0 : Math.floor(r() * 40) - 20;
          if (step + change > 0 && step + change < 2 ** 40) step += change;
          t += step;
        }
        const y = r();
        // Repeats, counters, short decimals (the decimal change at its widths' edges too), mantissas
        // near the decimal limit, and what only XOR keeps.
        const z = r();
        v =
          y < 0.3
            ? v
            : y < 0.5
              ? v + Math.floor(r() * 10)
              : y < 0.6
                ? Math.round((v + EDGES[Math.floor(r() * EDGES.length)]! / 100) * 100) / 100
                : y < 0.7
                  ? Math.floor(r() * 1000) / 8
                  : y < 0.75
                    ? (z < 0.5 ? 1 : -1) * (2 ** 50 - Math.floor(r() * 4))
                    : y < 0.88
                      ? fromBits(r)
                      : [Number.NaN, -0, 0, Number.POSITIVE_INFINITY, -Number.MAX_VALUE, 0.1 + 0.2][Math.floor(r() * 6)]!;
        expect(s.push(t, v)).toBe(true);
        want.ts.push(t);
        want.nums.push(v);
      }
      const got = decoded(s, n);
      expect(got.ts).toEqual(want.ts);
      expect(bits(got.nums)).toEqual(bits(want.nums));
    }
  });

  it("refuses timestamps it cannot encode and keeps what it holds", () => {
    const s = new PointStream();
    expect(s.push(1.5, 1)).toBe(false);
    expect(s.push(2 ** 53, 1)).toBe(false);
    expect(s.bitLength).toBe(0);
    expect(s.push(1000, 1)).toBe(true);
    expect(s.push(2000, 2)).toBe(true);
    // Not after the last, not an integer, a change of step past 32 bits.
    for (const t of [2000, 1999, 2000.5, 2000 + 1000 + 2 ** 31, 2 ** 53 + 2]) expect(s.push(t, 9)).toBe(false);
    expect(s.push(3000, 3)).toBe(true);
    expect(decoded(s, 3)).toEqual({ ts: [1000, 2000, 3000], nums: [1, 2, 3] });
    // The first step is a change from 0: one past 32 bits is refused as well.
    const first = new PointStream();
    expect(first.push(0, 1)).toBe(true);
    expect(first.push(2 ** 31, 1)).toBe(false);
    expect(first.push(2 ** 31 - 1, 2)).toBe(true);
    expect(decoded(first, 2)).toEqual({ ts: [0, 2 ** 31 - 1], nums: [1, 2] });
  });

  it("holds a scraped series in a few bytes a point, and starts again empty when cleared", () => {
    const s = new PointStream();
    for (let i = 0; i < 1000; i++) s.push(1_700_000_000_000 + i * 15_000 + (i % 4), 100 + (i % 10));
    expect(s.streamBytes).toBeLessThan(1000 * 3);
    s.clearStream();
    expect(s.bitLength).toBe(0);
    // A stream that grew past what it keeps gives its words up.
    expect(s.streamBytes).toBeLessThanOrEqual(256);
    expect(s.push(5, 0.5)).toBe(true);
    expect(decoded(s, 1)).toEqual({ ts: [5], nums: [0.5] });
  });
});
