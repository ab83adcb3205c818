import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { keyValue, QuantileSketch, SKETCH_RELATIVE_ACCURACY, sketchKey } from "../../../src/metrics/quantile-sketch.ts";
import { quantile } from "../../../src/promql/kahan.ts";

/** The stated bound: α of the exact value, plus the logarithm's rounding at a bin's edge. */
const BOUND = SKETCH_RELATIVE_ACCURACY * (1 + 1e-9);

function exactAt(sorted: number[], r: number): number {
  return sorted[r]!;
}

const values = fc.array(
  fc.oneof(
    fc.double({ min: -1e12, max: 1e12, noNaN: true, noDefaultInfinity: true }),
    fc.double({ min: 1e-300, max: 1e300, noNaN: true }),
    fc.integer({ min: -1000, max: 1000 }).map((x) => x / 10),
    fc.constantFrom(0, -0, 1, 100, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MIN_VALUE, Number.MAX_VALUE),
  ),
  { minLength: 1, maxLength: 300 },
);

describe("the quantile sketch", () => {
  it("puts every value in a bin whose answer is within 1 % of it", () => {
    fc.assert(
      fc.property(fc.double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true }), (v) => {
        const k = sketchKey(v);
        // Subnormal bins answer beyond the doubles' range; the sketch clamps to [min, max].
        const a = keyValue(k);
        if (v < 2.3e-308) return;
        expect(Math.abs(a - v) / v).toBeLessThanOrEqual(BOUND);
      }),
    );
  });

  it("answers within 1 % for the largest doubles, whose bins' answers are near overflow", () => {
    // 8.935e307 once answered Number.MAX_VALUE: 2γ^k overflowed before the division by γ + 1.
    for (const v of [8.93533108155191e307, 1e308, 1.5e308, Number.MAX_VALUE / 1.0202, Number.MAX_VALUE]) {
      expect(Math.abs(keyValue(sketchKey(v)) - v) / v).toBeLessThanOrEqual(BOUND);
    }
  });

  it("answers the value at every rank within the stated relative error", () => {
    fc.assert(
      fc.property(values, (vs) => {
        const s = new QuantileSketch();
        for (const v of vs) s.add(v);
        const sorted = [...vs].sort((a, b) => a - b);
        const min = sorted[0]!;
        const max = sorted.at(-1)!;
        expect(s.count).toBe(vs.length);
        for (let r = 0; r < vs.length; r++) {
          const want = exactAt(sorted, r);
          const got = s.valueAt(r, min, max);
          if (!Number.isFinite(want)) expect(got).toBe(want);
          else if (Math.abs(want) < 2.3e-308) expect(Math.abs(got)).toBeLessThan(2.3e-308);
          else expect(Math.abs(got - want)).toBeLessThanOrEqual(BOUND * Math.abs(want));
        }
      }),
    );
  });

  it("interpolates quantiles as Prometheus does, within the error where neighbours share a sign", () => {
    fc.assert(
      fc.property(values, fc.double({ min: 0, max: 1, noNaN: true }), (vs, q) => {
        const finite = vs.filter((v) => Number.isFinite(v) && (v === 0 || Math.abs(v) >= 2.3e-308));
        fc.pre(finite.length > 0 && (finite.every((v) => v >= 0) || finite.every((v) => v <= 0)));
        const s = new QuantileSketch();
        for (const v of finite) s.add(v);
        const want = quantile(q, [...finite]);
        const got = s.quantile(q, Math.min(...finite), Math.max(...finite));
        expect(Math.abs(got - want)).toBeLessThanOrEqual(BOUND * Math.abs(want) + 1e-300);
      }),
    );
  });

  it("merges exactly: the merge of two sketches is the sketch of both sets", () => {
    fc.assert(
      fc.property(values, values, (a, b) => {
        const sa = new QuantileSketch();
        const sb = new QuantileSketch();
        const both = new QuantileSketch();
        for (const v of a) {
          sa.add(v);
          both.add(v);
        }
        for (const v of b) {
          sb.add(v);
          both.add(v);
        }
        sa.merge(sb);
        expect(sa.count).toBe(both.count);
        for (let r = 0; r < both.count; r++) expect(sa.valueAt(r, -Infinity, Infinity)).toBe(both.valueAt(r, -Infinity, Infinity));
      }),
    );
  });

  it("leaves NaN out, and is reused after clear()", () => {
    const s = new QuantileSketch();
    s.add(Number.NaN);
    expect(s.count).toBe(0);
    expect(s.quantile(0.5, 0, 0)).toBeNaN();
    for (let i = 1; i <= 100; i++) s.add(i);
    expect(Math.abs(s.quantile(0.5, 1, 100) - 50.5)).toBeLessThanOrEqual(0.51);
    s.clear();
    s.add(7);
    expect(s.count).toBe(1);
    expect(s.quantile(0.9, 7, 7)).toBe(7);
  });
});
