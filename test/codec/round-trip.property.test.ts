import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodePoints, encodePoints, inspectBlock } from "../../src/codec/index.ts";
import { pointCount, sameBits, stringColumn, tagsColumn, tsColumn, valueColumn } from "./arbitraries.ts";

const SCHEMES = ["auto", "decimal", "xor", "raw"] as const;

describe("point codec round trip", () => {
  it("numeric blocks come back bit for bit, in the order given, in every value scheme", () => {
    const block = pointCount.chain((n) => fc.tuple(tsColumn(n), valueColumn(n), fc.constantFrom(...SCHEMES)));
    fc.assert(
      fc.property(block, ([ts, values, scheme]) => {
        const p = { ts: Float64Array.from(ts), nums: Float64Array.from(values) };
        const bytes = encodePoints(p, { values: scheme });
        const d = decodePoints(bytes);
        expect(sameBits(d.ts, p.ts)).toBe(true);
        expect(sameBits(d.nums!, p.nums)).toBe(true);
        expect(d.strs).toBeUndefined();
        expect(d.tags).toBeUndefined();
        expect(inspectBlock(bytes).points).toBe(ts.length);
      }),
      { numRuns: 400 },
    );
  });

  it("string blocks come back exactly, lone surrogates and repeated states included", () => {
    const block = pointCount.chain((n) => fc.tuple(tsColumn(n), stringColumn(n)));
    fc.assert(
      fc.property(block, ([ts, strs]) => {
        const d = decodePoints(encodePoints({ ts: Float64Array.from(ts), strs }));
        expect(sameBits(d.ts, Float64Array.from(ts))).toBe(true);
        expect(d.strs).toEqual(strs);
        expect(d.nums).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it("per-point tags come back with their keys in order; points without tags stay without", () => {
    const block = pointCount.chain((n) => fc.tuple(tsColumn(n), valueColumn(n), stringColumn(n), tagsColumn(n), fc.boolean()));
    fc.assert(
      fc.property(block, ([ts, values, strs, tags, numeric]) => {
        const p = numeric ? { ts: Float64Array.from(ts), nums: Float64Array.from(values), tags } : { ts: Float64Array.from(ts), strs, tags };
        const d = decodePoints(encodePoints(p));
        if (tags.every((t) => t === undefined)) expect(d.tags).toBeUndefined();
        else {
          expect(d.tags).toHaveLength(tags.length);
          tags.forEach((t, i) => {
            expect(d.tags![i]).toEqual(t);
            if (t) expect(Object.keys(d.tags![i]!)).toEqual(Object.keys(t));
          });
        }
        if (numeric) expect(sameBits(d.nums!, Float64Array.from(values))).toBe(true);
        else expect(d.strs).toEqual(strs);
      }),
      { numRuns: 300 },
    );
  });
});
