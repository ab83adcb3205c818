import fc from "fast-check";
import { LIMITS } from "../../src/metrics/limits.ts";

/** Tags at and just past each limit of limits.ts. */
const tagsOf = (n: number, name = (i: number) => `t${i}`, value = () => "v") => Object.fromEntries(Array.from({ length: n }, (_, i) => [name(i), value()]));
const edgeTags = [
  tagsOf(LIMITS.tagsPerPoint),
  tagsOf(LIMITS.tagsPerPoint + 1),
  tagsOf(1, () => "n".repeat(LIMITS.tagNameLength)),
  tagsOf(1, () => "n".repeat(LIMITS.tagNameLength + 1)),
  tagsOf(1, undefined, () => "v".repeat(LIMITS.tagValueLength)),
  tagsOf(1, undefined, () => "v".repeat(LIMITS.tagValueLength + 1)),
];

/** Generators of metric writes near the normalized form, for the fast-acceptance property tests. */
// Values close to the normalized form, with the deviations the HTTP schemas convert or refuse.
export const anyValue = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 1.5, -0),
  fc.constantFrom("up", "down", "unknown", "UP", "Down", "12", " 3 ", "x", "", "a".repeat(2049)),
  fc.string({ maxLength: 8 }),
  fc.constantFrom(null, undefined, true, [1]),
);
export const anyTimestamp = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 42 }),
  fc.constantFrom(1.5, "1000", Number.NaN, 2 ** 53, undefined, -5, LIMITS.maxTimestamp, LIMITS.maxTimestamp + 1, LIMITS.minTimestamp),
);
export const anyTags = fc.oneof(
  fc.constant(undefined),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.oneof(fc.integer(), fc.boolean(), fc.constant(null)), { minKeys: 1, maxKeys: 2 }),
  fc.constantFrom(null, [], "t", new Map([["a", "b"]])),
  fc.constantFrom(...edgeTags),
);
export const anyPoint = fc.oneof(
  { weight: 5, arbitrary: fc.record({ timestamp: anyTimestamp, value: anyValue, tags: anyTags }, { requiredKeys: ["timestamp", "value"] }) },
  { weight: 1, arbitrary: fc.record({ timestamp: anyTimestamp, value: anyValue, extra: fc.integer() }) },
);
export const anyWrite = fc.oneof(
  { weight: 5, arbitrary: fc.record({ type: fc.constantFrom("gauge", "counter", "availability", "string", "Gauge", "toString"), id: fc.constantFrom("m", " m", "m ", "", "x.y", "i".repeat(LIMITS.metricIdLength), "i".repeat(LIMITS.metricIdLength + 1)), points: fc.array(anyPoint, { maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant("gauge"), id: fc.constant("m"), points: fc.array(anyPoint, { minLength: 1, maxLength: 2 }), more: fc.constant(1) }) },
);
export const validValue = {
  gauge: fc.double({ noNaN: true, noDefaultInfinity: true }),
  counter: fc.maxSafeInteger(),
  availability: fc.constantFrom("up", "down", "unknown"),
  string: fc.string({ maxLength: 20 }),
};
export const validWrite = fc.constantFrom("gauge", "counter", "availability", "string").chain((type) =>
  fc.record({
    type: fc.constant(type),
    id: fc.constantFrom("m", "x.y", "cpu:0"),
    points: fc.array(
      fc.record(
        { timestamp: fc.integer({ min: 0, max: 2 ** 42 }), value: validValue[type] as fc.Arbitrary<unknown>, tags: fc.oneof({ weight: 6, arbitrary: fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }) }, { weight: 1, arbitrary: anyTags }) },
        { requiredKeys: ["timestamp", "value"] },
      ),
      { minLength: 1, maxLength: 4 },
    ),
  }),
);
export const anyChunk = fc.oneof(
  { weight: 4, arbitrary: fc.array(validWrite, { minLength: 1, maxLength: 3 }) },
  { weight: 4, arbitrary: fc.array(fc.oneof(validWrite, anyWrite), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom(null, {}, "c", 3) },
);
