/**
 * The roller's reused memory (SegPool, RollScratch, FloatArena, a reused ByteWriter, mergeRuns
 * into an arena) must give the blocks fresh memory gives, byte for byte: several series of
 * every kind rolled in turn through one scratch, against each rolled alone with fresh arrays.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ByteWriter } from "../../../src/codec/bytes.ts";
import { FloatArena } from "../../../src/runtime/float-arena.ts";
import { segs } from "../../../src/metrics/rollup/roll.ts";
import { RollScratch } from "../../../src/metrics/rollup/rows-builder.ts";
import { KIND_AVAILABILITY, KIND_COUNTER, KIND_NUMERIC, type RollupKind } from "../../../src/metrics/rollup/rows.ts";
import { mergeRuns, type Run } from "../../../src/metrics/run.ts";
import { RollupSim } from "../../helpers/rollup-sim.ts";

const T0 = 1_767_225_600_000; // 2026-01-01
const MIN = 60_000;
const DAY = 86_400_000;

const pointArb = fc.record({
  gap: fc.oneof(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 600 }).map((m) => m * 60)),
  v: fc.oneof(fc.integer({ min: -50, max: 1000 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.double({ min: -1e-3, max: 1e-3, noNaN: true })),
  nan: fc.integer({ min: 0, max: 30 }),
});
/** Chunks of a series: where each starts (late ones start early), its points, and whether it expires early. */
const seriesArb = fc.record({
  kind: fc.constantFrom<RollupKind>(KIND_NUMERIC, KIND_COUNTER, KIND_AVAILABILITY),
  chunks: fc.array(fc.record({ at: fc.integer({ min: 0, max: 3 * 24 * 60 }), points: fc.array(pointArb, { minLength: 1, maxLength: 60 }), expires: fc.boolean() }), {
    minLength: 1,
    maxLength: 6,
  }),
});

function pointsOf(kind: RollupKind, chunk: { at: number; points: { gap: number; v: number; nan: number }[] }): [number, number][] {
  let t = T0 + chunk.at * MIN;
  let c = 0;
  return chunk.points.map((p) => {
    t += p.gap * 1000;
    if (kind === KIND_AVAILABILITY) return [t, Math.abs(Math.trunc(p.v)) % 4];
    if (kind === KIND_COUNTER) c = p.nan === 1 ? 0 : c + Math.abs(p.v);
    return [t, p.nan === 0 ? Number.NaN : kind === KIND_COUNTER ? c : p.v];
  });
}

describe("the roller's reused memory", () => {
  it("gives the blocks fresh memory gives, byte for byte, series after series of every kind", () => {
    const scratch = new RollScratch();
    const writer = new ByteWriter(16);
    fc.assert(
      fc.property(fc.array(seriesArb, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 3 }), (series, batch) => {
        const pairs = series.map((s) => ({ s, fresh: new RollupSim(s.kind), reused: new RollupSim(s.kind, undefined, { scratch, writer }) }));
        const rounds = Math.max(...series.map((s) => s.chunks.length));
        for (let i = 0; i < rounds; i++) {
          // The series take turns: each step's memory was another series' (another kind's) before.
          for (const { s, fresh, reused } of pairs) {
            const c = s.chunks[i];
            if (!c) continue;
            for (const sim of [fresh, reused]) {
              // Chunks expiring early: later rolls merge late points into rows whose raw points are gone.
              sim.seal(pointsOf(s.kind, c), c.expires ? T0 + 2 * DAY : Number.MAX_SAFE_INTEGER);
              if (i === 2) sim.now = T0 + 3 * DAY;
              sim.roll(batch);
            }
            expect([...reused.bytes.keys()].sort()).toEqual([...fresh.bytes.keys()].sort());
            for (const [key, bytes] of fresh.bytes) expect(Buffer.from(reused.bytes.get(key)!).equals(Buffer.from(bytes)), key).toBe(true);
          }
        }
      }),
      { numRuns: 120 },
    );
  });

  it("reuses the buckets' segments: a few are ever made", () => {
    const before = segs.made;
    const sim = new RollupSim(KIND_COUNTER);
    for (let d = 0; d < 3; d++) {
      sim.seal(Array.from({ length: 2000 }, (_, i): [number, number] => [T0 + d * DAY + i * 30_000, i * 7 + Math.sin(i) * 1e-4]));
      sim.roll();
    }
    expect(sim.blocks.size).toBeGreaterThan(3);
    expect(segs.made - before).toBeLessThanOrEqual(4);
  });
});

describe("FloatArena", () => {
  it("hands out zeroed views that never overlap until reset, and grows its slab after a spill", () => {
    const a = new FloatArena();
    const cap = a.capacity;
    const views = [a.take(10), a.take(0), a.take(cap - 20), a.take(5)];
    for (const [i, v] of views.entries()) v.fill(i + 1);
    expect(views.map((v) => v.length)).toEqual([10, 0, cap - 20, 5]);
    expect(views[0]!.every((x) => x === 1) && views[2]!.every((x) => x === 3) && views[3]!.every((x) => x === 4)).toBe(true);
    // Beyond the slab: a fresh array, not a view of it.
    const spill = a.take(100);
    expect(spill.buffer).not.toBe(views[0]!.buffer);
    a.reset();
    expect(a.capacity).toBeGreaterThan(cap);
    const again = a.take(10);
    expect([...again]).toEqual(new Array(10).fill(0));
  });
});

describe("mergeRuns into reused memory", () => {
  it("merges as into fresh arrays, overlapping runs included", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.tuple(fc.integer({ min: 0, max: 200 }), fc.double({ noNaN: true })), { maxLength: 30 }), { maxLength: 5 }), (lists) => {
        const runs: Run[] = lists.map((l) => {
          const m = new Map(l);
          const ts = Float64Array.from([...m.keys()].sort((x, y) => x - y));
          return { ts, nums: ts.map((t) => m.get(t)!) };
        });
        const arena = new FloatArena();
        arena.take(3).fill(9);
        const got = mergeRuns(runs, true, (n) => arena.take(n));
        const want = mergeRuns(runs, true);
        expect([...got.ts]).toEqual([...want.ts]);
        expect([...got.nums!]).toEqual([...want.nums!]);
      }),
    );
  });
});
