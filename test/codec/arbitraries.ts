import fc from "fast-check";
import type { Tags } from "../../src/metrics/model.ts";

/** Generators of point columns for the codec's property tests. */

/** Any float64 by its bits: every NaN payload, ±Infinity, −0, subnormals. */
export const anyBits = fc.tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 2 ** 32 - 1 })).map(([lo, hi]) => {
  const a = new Float64Array(1);
  const w = new Uint32Array(a.buffer);
  w[0] = lo;
  w[1] = hi;
  return a[0]!;
});

const specials = fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 0, Number.MIN_VALUE, Number.MAX_VALUE, 2 ** 53, -(2 ** 53), 0.1, 1e-300);
/** Short decimals, as counters and most gauges are: integers × 10^−e. */
const decimal = fc.tuple(fc.integer({ min: -(2 ** 31), max: 2 ** 31 }), fc.integer({ min: 0, max: 6 })).map(([m, e]) => m / 10 ** e);

export const anyValue = fc.oneof(
  { weight: 3, arbitrary: fc.double() },
  { weight: 3, arbitrary: decimal },
  { weight: 2, arbitrary: specials },
  { weight: 2, arbitrary: anyBits },
  { weight: 1, arbitrary: fc.maxSafeInteger() },
);

/** Value columns: random, or shaped like real series (constant, counter, decimal walk), with specials mixed in. */
export const valueColumn = (n: number) =>
  fc.oneof(
    fc.array(anyValue, { minLength: n, maxLength: n }),
    anyValue.map((v) => new Array<number>(n).fill(v)),
    // Decimal steps of one size (constant first or second differences, integer or scaled).
    fc.tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: -5000, max: 5000 }), fc.integer({ min: 0, max: 4 })).map(([c0, step, e]) => Array.from({ length: n }, (_v, i) => (c0 + i * step) / 10 ** e)),
    fc.tuple(fc.integer({ min: 0, max: 2 ** 40 }), fc.array(fc.nat(5000), { minLength: n, maxLength: n }), fc.constantFrom(1, 10, 512, 4096)).map(([start, steps, unit]) => {
      let c = start;
      return steps.map((s) => (c += s * unit));
    }),
    fc.tuple(fc.array(fc.integer({ min: -300, max: 300 }), { minLength: n, maxLength: n }), fc.integer({ min: 0, max: 3 }), fc.array(fc.tuple(fc.nat(n), specials), { maxLength: 3 })).map(
      ([steps, e, holes]) => {
        let c = 1000;
        const v = steps.map((s) => (c += s) / 10 ** e);
        for (const [i, x] of holes) if (i < n) v[i] = x;
        return v;
      },
    ),
  );

/** Timestamp columns: regular with jitter and gaps, unsorted, duplicated, huge, negative, or any float64. */
export const tsColumn = (n: number) =>
  fc.oneof(
    fc.tuple(fc.integer({ min: -(2 ** 41), max: 2 ** 42 }), fc.array(fc.oneof({ weight: 8, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.integer({ min: -20, max: 20 }) }, { weight: 1, arbitrary: fc.integer({ min: -(2 ** 31), max: 2 ** 40 }) }), { minLength: n, maxLength: n })).map(
      ([t0, jitter]) => {
        let t = t0;
        return jitter.map((j) => (t += 10_000 + j));
      },
    ),
    // Strictly regular (every second difference zero: readIntColumn's path without unpacking).
    fc.tuple(fc.integer({ min: -(2 ** 41), max: 2 ** 42 }), fc.integer({ min: 0, max: 3_600_000 })).map(([t0, step]) => Array.from({ length: n }, (_v, i) => t0 + i * step)),
    fc.array(fc.integer({ min: -(2 ** 50), max: 2 ** 50 }), { minLength: n, maxLength: n }),
    fc.array(fc.maxSafeInteger(), { minLength: n, maxLength: n }),
    fc.array(fc.constantFrom(5, 5, 7, -3, 0, 2 ** 50, -(2 ** 50)), { minLength: n, maxLength: n }),
    fc.array(fc.oneof(fc.maxSafeInteger(), specials, anyBits), { minLength: n, maxLength: n }),
  );

/** Strings with any UTF-16 code units (lone surrogates too), or repeated states. */
const anyString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 6 }),
  fc.constantFrom("up", "down", "", "ok", "état", "🚀 launched"),
);
export const stringColumn = (n: number) =>
  fc.oneof(fc.array(anyString, { minLength: n, maxLength: n }), fc.array(fc.constantFrom("ok", "warn", "fail"), { minLength: n, maxLength: n }));

const tagSet: fc.Arbitrary<Tags> = fc.dictionary(fc.string({ unit: "binary", maxLength: 5 }), fc.string({ unit: "binary", maxLength: 5 }), { maxKeys: 3 });
export const tagsColumn = (n: number) =>
  fc.oneof(
    fc.array(fc.option(tagSet, { nil: undefined }), { minLength: n, maxLength: n }),
    fc.tuple(tagSet, fc.array(fc.boolean(), { minLength: n, maxLength: n })).map(([t, on]) => on.map((b) => (b ? t : undefined))),
  );

/** Point counts: empty, one, around group boundaries (32), and larger. */
export const pointCount = fc.oneof(fc.constantFrom(0, 1, 2, 3, 31, 32, 33, 64, 65), fc.integer({ min: 0, max: 300 }));

/** True when both arrays hold the same float64 bits. */
export function sameBits(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length * 2);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length * 2);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}
