/**
 * quotientOfDigits (src/metrics/decimal-exact.ts) against the engine's own reading of the same
 * text: whenever it answers, the double is Number()'s bit for bit; it declines (NaN) only rarely.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quotientOfDigits } from "../../src/metrics/decimal-exact.ts";

/** The text of (digits) × 10^−k, with the digits' split as the scanner makes it. */
function text(digits: string, k: number): string {
  const n = digits.length;
  return k >= n ? `0.${"0".repeat(k - n)}${digits}` : `${digits.slice(0, n - k)}.${digits.slice(n - k)}`;
}
const quotient = (digits: string, k: number) => quotientOfDigits(Number(digits.slice(0, 9)), digits.length - 9, Number(digits.slice(9)), k);

const digitString = fc
  .tuple(fc.constantFrom(..."123456789"), fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 15, maxLength: 16 }))
  .map(([a, b]) => a + b);

describe("reading 16- and 17-digit decimals exactly", () => {
  it("answers Number()'s double whenever it answers, for any digits and any fraction length up to 22", () => {
    let declined = 0;
    let runs = 0;
    fc.assert(
      fc.property(digitString, fc.integer({ min: 1, max: 22 }), (digits, k) => {
        runs++;
        const v = quotient(digits, k);
        if (Number.isNaN(v)) declined++;
        else expect(Object.is(v, Number(text(digits, k)))).toBe(true);
      }),
      { numRuns: 200_000 },
    );
    // Declined: ties and near-ties, which exist only for large values with few decimals.
    expect(declined / runs).toBeLessThan(0.01);
  });

  it("reads every double printed in full between 1e-6 and 1e6 as itself, declining almost none", () => {
    let declined = 0;
    let read = 0;
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1e6, noNaN: true }), (x) => {
        const m = /^(\d+)\.(\d+)$/.exec(String(x));
        if (!m) return;
        const digits = `${m[1] === "0" ? "" : m[1]}${m[2]}`.replace(/^0+/, "");
        if (digits.length < 16 || digits.length > 17) return;
        read++;
        const v = quotient(digits, m[2]!.length);
        if (Number.isNaN(v)) declined++;
        else expect(v).toBe(x);
      }),
      { numRuns: 200_000 },
    );
    expect(read).toBeGreaterThan(50_000);
    expect(declined).toBeLessThan(read / 10_000);
  });

  it("declines an exact tie between two doubles (the caller's reader rounds it to even)", () => {
    // 2^53 + 1 is halfway between 2^53 and 2^53 + 2: as 9007199254740993.0 (k = 1, 17 digits).
    expect(quotient("90071992547409930", 1)).toBeNaN();
    expect(Number("9007199254740993.0")).toBe(2 ** 53);
  });
});
