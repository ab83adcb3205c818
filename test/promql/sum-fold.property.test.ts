import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Aggregate } from "../../src/promql/ast.ts";
import { GroupAggregator } from "../../src/promql/group-aggregator.ts";
import { kahanAdd } from "../../src/promql/kahan.ts";
import { newStepSeries } from "../../src/promql/values.ts";

/**
 * `sum` folds each step with the compensated (Neumaier) addition of kahan.ts, per step and series:
 * the fold must give the very bits of kahanAdd applied in series order, whatever the values
 * (overflow to ±Infinity, NaN, -0, magnitudes far apart) and gaps.
 */
const STEPS = 12;
const value = fc.oneof(
  fc.double(),
  fc.constantFrom(0, -0, 1e308, -1e308, 1e-308, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, 1, 1e16, -1e16),
);
const series = fc.array(fc.option(value, { nil: undefined }), { minLength: STEPS, maxLength: STEPS });

describe("sum's fold", () => {
  it("equals kahanAdd in series order, bit for bit", () => {
    fc.assert(
      fc.property(fc.array(series, { minLength: 1, maxLength: 8 }), (input) => {
        const e: Aggregate = { kind: "aggregate", op: "sum", expr: { kind: "number", value: 0 } as never, grouping: [], without: false };
        const agg = new GroupAggregator(e, STEPS);
        for (const [k, steps] of input.entries()) {
          const s = newStepSeries([["k", String(k)]], STEPS);
          steps.forEach((v, i) => {
            if (v === undefined) return;
            s.vals[i] = v;
            s.has[i] = 1;
          });
          agg.add(s);
        }
        const [got] = agg.result();
        for (let i = 0; i < STEPS; i++) {
          const present = input.map((steps) => steps[i]).filter((v): v is number => v !== undefined);
          if (present.length === 0) {
            expect(got?.has[i] ?? 0).toBe(0);
            continue;
          }
          const st = { sum: present[0]!, c: 0 };
          for (const v of present.slice(1)) kahanAdd(st, v);
          expect(got!.has[i]).toBe(1);
          expect(Object.is(got!.vals[i], st.sum + st.c), `step ${i}: ${got!.vals[i]} vs ${st.sum + st.c}`).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
