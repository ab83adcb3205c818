/**
 * --value-precision's rounding (src/metrics/value-precision.ts): at most N significant digits,
 * within half a unit of the N-th digit, idempotent, and values the decimal codec stores exactly.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planDecimal } from "../../src/codec/decimal.ts";
import { decodePoints, encodePoints, inspectBlock } from "../../src/codec/index.ts";
import { roundToSignificant, roundWrites } from "../../src/metrics/value-precision.ts";
import { anyBits, sameBits } from "../codec/arbitraries.ts";

/** Significant digits of the shortest decimal that reads back as v ("1.23e-300" → 3, "1200" → 2). */
function significantDigits(v: number): number {
  const mantissa = String(Math.abs(v)).split("e")[0]!.replace(".", "");
  return mantissa.replace(/^0+/, "").replace(/0+$/, "").length;
}

/** The decimal exponent of v's leading digit, exactly (toExponential works on the exact binary value). */
const leadingExponent = (v: number) => Number(v.toExponential(20).split("e")[1]);

const finite = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), anyBits.filter(Number.isFinite), fc.integer().map((i) => i / 1000));
const digits = fc.integer({ min: 1, max: 17 });

describe("roundToSignificant", () => {
  it("keeps at most N significant digits, within half a unit of the N-th digit (plus the ulp of the result), and is idempotent", () => {
    fc.assert(
      fc.property(finite, digits, (v, n) => {
        const r = roundToSignificant(v, n);
        if (v === 0) return void expect(Object.is(r, v)).toBe(true);
        // Next to the largest double, where rounding up would overflow, v is kept.
        if (!Number.isFinite(Number(v.toPrecision(n)))) return void expect(r).toBe(v);
        expect(significantDigits(r)).toBeLessThanOrEqual(n);
        if (Number.isFinite(r) && r !== v) {
          const halfUnit = 0.5 * 10 ** (leadingExponent(v) - n + 1);
          // Within a factor of two of each other, so the subtraction is exact (Sterbenz).
          const ulp = Math.abs(r) * 2 ** -52;
          expect(Math.abs(v - r)).toBeLessThanOrEqual(halfUnit * (1 + 2 ** -50) + ulp);
          expect(Math.sign(r)).toBe(Math.sign(v));
        }
        expect(Object.is(roundToSignificant(r, n), r)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it("is the exact decimal rounding: the double nearest to toPrecision's N digits", () => {
    fc.assert(
      fc.property(finite, digits, (v, n) => {
        fc.pre(v !== 0); // toPrecision drops −0's sign; roundToSignificant keeps ±0 as they are (tested below)
        const exact = Number(v.toPrecision(n));
        const r = roundToSignificant(v, n);
        // Only next to the largest double, where the rounding would overflow, is v kept instead.
        expect(Object.is(r, Number.isFinite(exact) ? exact : v)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it("leaves NaN, ±Infinity, 0 and −0 as they are", () => {
    for (const v of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, -0]) {
      for (const n of [1, 3, 12, 17]) expect(Object.is(roundToSignificant(v, n), v)).toBe(true);
    }
  });

  it("examples: the end-to-end figures and the edges of the fast path", () => {
    expect(roundToSignificant(123.456, 3)).toBe(123);
    expect(roundToSignificant(0.0012345, 3)).toBe(0.00123);
    expect(roundToSignificant(-2.5, 1)).toBe(-3);
    expect(roundToSignificant(99.96, 3)).toBe(100);
    expect(roundToSignificant(123_456_789, 3)).toBe(123_000_000);
    expect(roundToSignificant(0.1 + 0.2, 12)).toBe(0.3);
    expect(roundToSignificant(1.23456e-300, 3)).toBe(1.23e-300);
    expect(roundToSignificant(Number.MAX_VALUE, 3)).toBe(Number.MAX_VALUE);
    expect(roundToSignificant(Math.PI, 17)).toBe(Math.PI);
  });

  it("gives values the decimal codec's test accepts: m = round(r · 10^k) and m / 10^k === r, for k = N − 1 − leading exponent ≤ 15", () => {
    fc.assert(
      fc.property(finite, fc.integer({ min: 1, max: 15 }), (v, n) => {
        const r = roundToSignificant(v, n);
        const k = n - 1 - leadingExponent(v);
        fc.pre(r !== 0 && k >= 0 && k <= 15);
        const p = 10 ** k;
        const m = Math.round(r * p);
        expect(Math.abs(m)).toBeLessThanOrEqual(10 ** n);
        expect(m / p).toBe(r);
      }),
      { numRuns: 5000 },
    );
  });
});

describe("rounded values in the point codec", () => {
  // Blocks of one magnitude range, as a series is: |v| in [0.1, 1000), so that one exponent
  // (at most N) serves the block and its mantissas stay within the integer column's ±2^50.
  const value = fc.oneof(fc.double({ min: 0.1, max: 999.9, noNaN: true }), fc.double({ min: -999.9, max: -0.1, noNaN: true }), fc.constant(0));
  const block = fc.tuple(fc.integer({ min: 1, max: 11 }), fc.array(value, { minLength: 1, maxLength: 400 }));

  it("every rounded value of a block is an exact decimal with one exponent (no exception); the block comes back bit for bit", () => {
    fc.assert(
      fc.property(block, ([n, vs]) => {
        const nums = Float64Array.from(vs, (v) => roundToSignificant(v, n));
        const plan = planDecimal(nums, nums.length, 0);
        expect(plan).toBeDefined();
        expect(plan!.e).toBeLessThanOrEqual(n);
        const ts = Float64Array.from(vs, (_v, i) => 1_700_000_000_000 + i * 10_000);
        const decimal = encodePoints({ ts, nums }, { values: "decimal" });
        expect(inspectBlock(decimal).valueScheme).toBe("decimal");
        expect(sameBits(decodePoints(decimal).nums!, nums)).toBe(true);
        // "auto" may still take xor for a handful of points, where it is smaller; never loses bits.
        expect(sameBits(decodePoints(encodePoints({ ts, nums })).nums!, nums)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("a peers-workload series (bench/peers.ts) rounded to 12 digits is stored as decimal, in about 60 % of xor's bytes; unrounded it is xor", () => {
    const vs = Array.from({ length: 1000 }, (_v, j) => 42 + Math.sin(j / 10) * 10);
    const ts = Float64Array.from(vs, (_v, i) => 1_700_000_000_000 + i * 10_000);
    const rounded = Float64Array.from(vs, (v) => roundToSignificant(v, 12));
    const auto = encodePoints({ ts, nums: rounded });
    expect(inspectBlock(auto).valueScheme).toBe("decimal");
    expect(auto.length).toBeLessThan(0.7 * encodePoints({ ts, nums: rounded }, { values: "xor" }).length);
    expect(inspectBlock(encodePoints({ ts, nums: Float64Array.from(vs) })).valueScheme).toBe("xor");
  });
});

describe("roundWrites", () => {
  it("rounds gauge and counter values only; timestamps, tags, availability and strings stay, the input is not changed", () => {
    const writes = [
      { type: "gauge" as const, id: "g", points: [{ timestamp: 1_700_000_000_123, value: 123.456, tags: { a: "1" } }] },
      { type: "counter" as const, id: "c", points: [{ timestamp: 1_700_000_000_999, value: 987_654 }] },
      { type: "availability" as const, id: "a", points: [{ timestamp: 1_700_000_000_001, value: "up" }] },
      { type: "string" as const, id: "s", points: [{ timestamp: 1_700_000_000_002, value: "3.14159" }] },
    ];
    const copy = structuredClone(writes);
    expect(roundWrites(writes, 3)).toEqual([
      { type: "gauge", id: "g", points: [{ timestamp: 1_700_000_000_123, value: 123, tags: { a: "1" } }] },
      { type: "counter", id: "c", points: [{ timestamp: 1_700_000_000_999, value: 988_000 }] },
      writes[2],
      writes[3],
    ]);
    expect(writes).toEqual(copy);
  });
});
