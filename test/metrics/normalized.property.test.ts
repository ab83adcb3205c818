import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { METRIC_TYPES } from "../../src/metrics/model.ts";
import { normalizedMetricsBody, normalizedPointsBody } from "../../src/metrics/normalized.ts";
import { metricsBodySchema, pointsBodySchema } from "../../src/metrics/schemas.ts";
import { anyPoint, validValue } from "../helpers/point-arbitraries.ts";

const type = fc.constantFrom(...METRIC_TYPES);
const validPoints = (t: keyof typeof validValue) =>
  fc.array(fc.record({ timestamp: fc.integer({ min: 0, max: 2 ** 42 }), value: validValue[t] as fc.Arbitrary<unknown> }), { maxLength: 3 });
const points = (t: keyof typeof validValue) => fc.oneof({ weight: 3, arbitrary: validPoints(t) }, { weight: 1, arbitrary: fc.array(anyPoint, { maxLength: 3 }) });
const metric = (t: keyof typeof validValue) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ id: fc.constantFrom("m", "a.b"), data: points(t), dataPoints: points(t) }, { requiredKeys: ["id"] }) },
    { weight: 1, arbitrary: fc.record({ id: fc.constantFrom(" m", "", 3), dataPoints: points(t), other: fc.constant(1) }, { requiredKeys: ["id"] }) },
  );
const body = type.chain((t) => fc.tuple(fc.constant(t), fc.oneof({ weight: 5, arbitrary: fc.array(metric(t), { maxLength: 3 }) }, { weight: 1, arbitrary: fc.constantFrom(null, {}, "x") })));

describe("fast acceptance of normalized write bodies", () => {
  it("POST /{type}/raw: accepts only what the schema accepts, with the same writes", () => {
    let accepted = 0;
    fc.assert(
      fc.property(body, ([t, b]) => {
        const parsed = metricsBodySchema(t).safeParse(b);
        const fast = normalizedMetricsBody(t, b);
        if (fast === undefined) return;
        accepted++;
        expect(parsed.success).toBe(true);
        expect(fast).toEqual(parsed.data);
      }),
      { numRuns: 5000 },
    );
    expect(accepted).toBeGreaterThan(1000);
  });

  it("POST /{type}/{id}/raw: accepts only points the schema accepts unchanged", () => {
    let accepted = 0;
    fc.assert(
      fc.property(type.chain((t) => fc.tuple(fc.constant(t), points(t))), ([t, p]) => {
        const parsed = pointsBodySchema(t).safeParse(p);
        if (normalizedPointsBody(t, p) === undefined) return;
        accepted++;
        expect(parsed.success).toBe(true);
        expect(parsed.data).toEqual(p);
      }),
      { numRuns: 5000 },
    );
    expect(accepted).toBeGreaterThan(1000);
  });
});
