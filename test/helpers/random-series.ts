import fc from "fast-check";

/** A counter-like or gauge-like series for PromQL properties: irregular spacing, gaps, resets, NaN. */
export interface RandomSeries {
  host: string;
  counter: boolean;
  samples: { gap: number; inc: number; reset: number; nan: number }[];
}

/** Random series with `minLength`–`maxLength` samples. */
export function randomSeries(minLength: number, maxLength: number): fc.Arbitrary<RandomSeries> {
  return fc.record({
    host: fc.constantFrom("a", "b", "c"),
    counter: fc.boolean(),
    samples: fc.array(
      fc.record({
        gap: fc.integer({ min: 1, max: 40 }),
        inc: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.double({ min: -100, max: 100, noNaN: true })),
        reset: fc.integer({ min: 0, max: 15 }),
        /** 0: a NaN sample (as a stale marker would read). */
        nan: fc.integer({ min: 0, max: 30 }),
      }),
      { minLength, maxLength },
    ),
  });
}

/** The series' samples from time `t0` on: gaps in seconds, counters reset to 0 when `reset` is 0. */
export function randomSamples(s: RandomSeries, t0: number): { ts: number[]; vals: number[] } {
  let t = t0;
  let v = 0;
  const ts: number[] = [];
  const vals: number[] = [];
  for (const p of s.samples) {
    t += p.gap * 1000;
    v = s.counter ? (p.reset === 0 ? 0 : v + Math.abs(p.inc)) : p.inc;
    ts.push(t);
    vals.push(p.nan === 0 ? Number.NaN : v);
  }
  return { ts, vals };
}
