import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ConditionEval, DampeningState } from "../../src/alerts/index.ts";
import { dampeningState } from "./helpers.ts";

/**
 * Invariants of the dampening algorithms (research §2.4) over random sequences of evaluations.
 * Each step is [truth, milliseconds since the previous step]; after a satisfied step the owner
 * resets, as the engine does after firing.
 */

const SEED = 20_241_122;
const RUNS = 300;

const make = dampeningState;

// Times in steps of 100 ms and windows in whole 100s, so evaluations often land exactly on a boundary.
const stepsArb = fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 5 }).map((k) => k * 100)), { maxLength: 120 });
const windowArb = fc.integer({ min: 1, max: 10 }).map((k) => k * 100);

interface Firing {
  index: number;
  now: number;
  trues: number;
  evals: number;
  start: number;
  /** Step indices whose evaluations make up evalSets. */
  setIndices: number[];
}

/** Drives a dampening, tagging each eval set with its step index; returns each firing. */
function drive(d: DampeningState, steps: [boolean, number][], onStep?: (i: number, now: number) => void): Firing[] {
  const out: Firing[] = [];
  let now = 1_000;
  steps.forEach(([truth, dt], i) => {
    now += dt;
    d.step(truth, now, () => [{ step: i } as unknown as ConditionEval]);
    // bookkeeping that must hold at every step
    expect(d.satisfyingEvals.length).toBe(d.numTrueEvals);
    expect(d.numTrueEvals).toBeLessThanOrEqual(d.numEvals);
    onStep?.(i, now);
    if (d.satisfied) {
      out.push({
        index: i,
        now,
        trues: d.numTrueEvals,
        evals: d.numEvals,
        start: d.trueEvalsStartTime,
        setIndices: d.satisfyingEvals.map((s) => (s[0] as unknown as { step: number }).step),
      });
      d.reset();
      expect([d.numTrueEvals, d.numEvals, d.satisfyingEvals.length, d.timing]).toEqual([0, 0, 0, false]);
    }
  });
  return out;
}

describe("dampening invariants (property tests)", () => {
  it("STRICT(N) fires exactly when the last N evaluations since the previous firing were all true", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), stepsArb, (n, steps) => {
        const firings = drive(make("STRICT", n, n, 0), steps);
        // reference model: a run counter that a false or a firing resets
        const expected: number[] = [];
        let run = 0;
        steps.forEach(([truth], i) => {
          run = truth ? run + 1 : 0;
          if (run === n) {
            expected.push(i);
            run = 0;
          }
        });
        expect(firings.map((f) => f.index)).toEqual(expected);
        for (const f of firings) expect(f.setIndices).toEqual(Array.from({ length: n }, (_, k) => f.index - n + 1 + k));
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("RELAXED_COUNT(N, M) fires on the Nth true, and gives up only when N trues can no longer fit in M evaluations", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }).chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: n + 1, max: n + 6 }))),
        stepsArb,
        ([n, m], steps) => {
          const firings = drive(make("RELAXED_COUNT", n, m, 0), steps);
          // reference model, stated as the rule: count; give up once the remaining chances are too few
          const expected: number[] = [];
          let evals = 0;
          let trues = 0;
          steps.forEach(([truth], i) => {
            evals++;
            if (truth) trues++;
            if (trues === n) {
              expected.push(i);
              evals = trues = 0;
            } else if (m - evals < n - trues) evals = trues = 0;
          });
          expect(firings.map((f) => f.index)).toEqual(expected);
          for (const f of firings) {
            expect(f.trues).toBe(n);
            expect(f.evals).toBeLessThanOrEqual(m);
          }
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("RELAXED_TIME(N, T) fires with exactly N trues, the first less than T before the last", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), windowArb, stepsArb, (n, t, steps) => {
        const times: number[] = [];
        const firings = drive(make("RELAXED_TIME", n, 0, t), steps, (_, now) => times.push(now));
        for (const f of firings) {
          expect(f.trues).toBe(n);
          expect(f.now - f.start).toBeLessThan(t);
          const first = f.setIndices[0]!;
          expect(times[first]).toBe(f.start);
          expect(f.setIndices.every((i) => steps[i]![0])).toBe(true);
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("STRICT_TIME(T) fires only after an unbroken run of trues spanning at least T, at its first true at or past T", () => {
    fc.assert(
      fc.property(windowArb, stepsArb, (t, steps) => {
        const times: number[] = [];
        const firings = drive(make("STRICT_TIME", 0, 0, t), steps, (_, now) => times.push(now));
        // reference: the run starts at the first true after a false or a firing
        const expected: number[] = [];
        let start: number | undefined;
        steps.forEach(([truth], i) => {
          if (!truth) start = undefined;
          else if (start === undefined) start = times[i]!;
          else if (times[i]! - start >= t) {
            expected.push(i);
            start = undefined;
          }
        });
        expect(firings.map((f) => f.index)).toEqual(expected);
        for (const f of firings) expect(f.trues).toBeGreaterThanOrEqual(2);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it("STRICT_TIMEOUT(T): a timeout check satisfies iff the current run of trues started at least T ago", () => {
    fc.assert(
      fc.property(windowArb, stepsArb, fc.integer({ min: 0, max: 40 }).map((k) => k * 100), (t, steps, wait) => {
        const d = make("STRICT_TIMEOUT", 0, 0, t);
        const times: number[] = [];
        drive(d, steps, (_, now) => times.push(now));
        const last = times.length > 0 ? times[times.length - 1]! : 1_000;
        // reference: start of the trailing run of trues that did not fire
        let start: number | undefined;
        steps.forEach(([truth], i) => {
          if (!truth) start = undefined;
          else if (start === undefined) start = times[i]!;
          else if (times[i]! - start >= t) start = undefined;
        });
        const fired = d.checkTimeout(last + wait);
        expect(fired).toBe(start !== undefined && last + wait >= start + t);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
