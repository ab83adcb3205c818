/**
 * The tiers' arithmetic against raw points, without a store: a series sealed in chunks (late
 * and repeated points, gaps, counter resets, NaN) is rolled up in batches as the stores do it,
 * and every bucket of every tier, and any interval composed from the tiers (cover.ts), must
 * summarize exactly the raw points there.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { composeAvailability, composeNumeric, rawPoints } from "../../../src/metrics/rollup/compose.ts";
import { cover, isRaw } from "../../../src/metrics/rollup/cover.ts";
import { QuantileSketch } from "../../../src/metrics/quantile-sketch.ts";
import { KIND_AVAILABILITY, KIND_COUNTER, KIND_NUMERIC, type NumericRows } from "../../../src/metrics/rollup/rows.ts";
import { AvailSeg, NumSeg } from "../../../src/metrics/rollup/segment.ts";
import { RollupSim, TEST_TIERS } from "../../helpers/rollup-sim.ts";

const T0 = 1_767_225_600_000; // 2026-01-01, on every tier's grid
const MIN = 60_000;

/** Chunks of points: each a run with random gaps (seconds to hours), some late (starting before the previous chunk's end). */
const chunksArb = (kind: number) =>
  fc.array(
    fc.record({
      /** Minutes after T0 where the chunk starts (late chunks start early). */
      at: fc.integer({ min: 0, max: 4 * 24 * 60 }),
      points: fc.array(
        fc.record({
          gap: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 600 }).map((m) => m * 60), fc.constantFrom(300, 3600, 60)),
          v: kind === KIND_AVAILABILITY ? fc.integer({ min: 0, max: 3 }) : fc.oneof(fc.integer({ min: -50, max: 1000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true })),
          reset: fc.integer({ min: 0, max: 9 }),
          nan: fc.integer({ min: 0, max: 40 }),
        }),
        { minLength: 1, maxLength: 40 },
      ),
    }),
    { minLength: 1, maxLength: 8 },
  );

function pointsOf(kind: number, chunk: { at: number; points: { gap: number; v: number; reset: number; nan: number }[] }): [number, number][] {
  let t = T0 + chunk.at * MIN;
  let c = 0;
  return chunk.points.map((p) => {
    t += p.gap * 1000;
    if (kind === KIND_COUNTER) c = p.reset === 0 ? Math.abs(p.v) % 7 : c + Math.abs(p.v);
    const v = kind === KIND_COUNTER ? c : p.v;
    return [t, kind !== KIND_AVAILABILITY && p.nan === 0 ? Number.NaN : v];
  });
}

function direct(kind: number, ts: Float64Array, vals: Float64Array, lo: number, hi: number): NumSeg {
  const s = new NumSeg(kind === KIND_COUNTER, new QuantileSketch(), kind === KIND_COUNTER ? new QuantileSketch() : undefined);
  for (let i = 0; i < ts.length; i++) if (ts[i]! >= lo && ts[i]! < hi) s.addPoint(ts[i]!, vals[i]!);
  return s;
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

function expectSame(got: NumSeg, want: NumSeg, rates: boolean): void {
  expect(got.n).toBe(want.n);
  if (want.n === 0) return;
  expect(got.min).toBe(want.min);
  expect(got.max).toBe(want.max);
  expect(close(got.sum, want.sum), `sum ${got.sum} vs ${want.sum}`).toBe(true);
  expect([got.firstT, got.firstV, got.lastT, got.lastV]).toEqual([want.firstT, want.firstV, want.lastT, want.lastV]);
  expect(close(got.rs, want.rs), `resets ${got.rs} vs ${want.rs}`).toBe(true);
  expect(got.sketch!.count).toBe(want.sketch!.count);
  for (const q of [0, 0.25, 0.5, 0.9, 1]) expect(got.sketch!.quantile(q, want.min, want.max)).toBe(want.sketch!.quantile(q, want.min, want.max));
  if (rates) {
    expect(got.rn).toBe(want.rn);
    if (want.rn > 0) {
      expect([got.rmin, got.rmax]).toEqual([want.rmin, want.rmax]);
      expect(close(got.rsum, want.rsum)).toBe(true);
    }
  }
}

describe("rollup tiers against raw points (pure)", () => {
  for (const [name, kind] of [
    ["gauges", KIND_NUMERIC],
    ["counters", KIND_COUNTER],
  ] as const) {
    it(`${name}: every stored bucket summarizes its raw points, and so does any interval composed from them`, () => {
      fc.assert(
        fc.property(chunksArb(kind), fc.integer({ min: 1, max: 3 }), fc.array(fc.tuple(fc.integer({ min: 0, max: 5 * 24 * 60 }), fc.integer({ min: 0, max: 3 * 24 * 60 }), fc.integer({ min: 0, max: 2 })), { minLength: 1, maxLength: 6 }), (chunks, batch, intervals) => {
          const sim = new RollupSim(kind);
          // Rolled as the chunks come: some before later ones are sealed.
          chunks.forEach((c, i) => {
            sim.seal(pointsOf(kind, c));
            if (i % 2 === 1) sim.roll(batch);
          });
          sim.roll(batch);
          const all = sim.merged(0, Number.MAX_SAFE_INTEGER);
          for (const [key, rows] of sim.blocks) {
            const k = Number(key.split(":")[0]);
            const start = Number(key.split(":")[1]);
            const step = TEST_TIERS[k]!.step;
            const r = rows as NumericRows;
            for (let j = 0; j < r.n; j++) {
              const a = start + r.idx[j]! * step;
              const seg = new NumSeg(kind === KIND_COUNTER, new QuantileSketch(), kind === KIND_COUNTER ? new QuantileSketch() : undefined);
              seg.appendEdge(r, j, a);
              seg.appendInterior(r, j);
              expectSame(seg, direct(kind, all.ts, all.vals, a, a + step), kind === KIND_COUNTER);
            }
          }
          const raw = rawPoints(all.ts, all.vals);
          for (const [from, len, align] of intervals) {
            // Intervals on the 1-hour grid, on a left-open window's grid (+1 ms), or anywhere.
            let lo = T0 + from * MIN + (align === 2 ? 17_123 : 0);
            let hi = lo + len * MIN + (align === 2 ? 5_077 : 0);
            if (align === 0) {
              lo = Math.floor(lo / 3_600_000) * 3_600_000;
              hi = Math.floor(hi / 3_600_000) * 3_600_000;
            }
            if (align === 1) {
              lo = Math.floor(lo / 300_000) * 300_000 + 1;
              hi = Math.floor(hi / 300_000) * 300_000 + 1;
            }
            if (hi <= lo) continue;
            const c = cover(sim, lo, hi, kind);
            expect(c.rawComplete).toBe(true);
            const got = new NumSeg(kind === KIND_COUNTER, new QuantileSketch(), kind === KIND_COUNTER ? new QuantileSketch() : undefined);
            composeNumeric(c, raw, got);
            expectSame(got, direct(kind, all.ts, all.vals, lo, hi), kind === KIND_COUNTER);
            // On the grids, raw points are read only where there are none (an empty range costs a lookup).
            if (align !== 2) {
              // (Staleness markers are no points: a bucket of markers alone has no row.)
              for (const p of c.pieces.filter(isRaw)) expect(all.ts.some((t, i) => t >= p.lo && t < p.hi && !Number.isNaN(all.vals[i]!))).toBe(false);
            }
          }
        }),
        { numRuns: 150 },
      );
    });
  }

  it("availability: every stored bucket, and any interval composed from them, is the raw points' segment", () => {
    fc.assert(
      fc.property(chunksArb(KIND_AVAILABILITY), fc.array(fc.tuple(fc.integer({ min: 0, max: 5 * 24 * 60 }), fc.integer({ min: 0, max: 3 * 24 * 60 })), { minLength: 1, maxLength: 6 }), (chunks, intervals) => {
        const sim = new RollupSim(KIND_AVAILABILITY);
        chunks.forEach((c, i) => {
          sim.seal(pointsOf(KIND_AVAILABILITY, c));
          if (i % 3 === 2) sim.roll(2);
        });
        sim.roll(1);
        const all = sim.merged(0, Number.MAX_SAFE_INTEGER);
        const raw = rawPoints(all.ts, all.vals);
        for (const [from, len] of intervals) {
          const lo = T0 + from * MIN;
          const hi = lo + len * MIN;
          if (hi <= lo) continue;
          const want = new AvailSeg();
          for (let i = 0; i < all.ts.length; i++) if (all.ts[i]! >= lo && all.ts[i]! < hi) want.addPoint(all.ts[i]!, all.vals[i]!);
          const got = new AvailSeg();
          composeAvailability(cover(sim, lo, hi, KIND_AVAILABILITY), raw, got);
          expect({ ...got, dur: [...got.dur] }).toEqual({ ...want, dur: [...want.dur] });
        }
      }),
      { numRuns: 150 },
    );
  });
});
