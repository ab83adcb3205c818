/**
 * Rollup blocks kept in segments (src/metrics/rollup/block-segments.ts): a series rolled up
 * batch after batch through a day appends the rows each batch changed, and its blocks read back
 * row for row as those of the same points rolled up at once (written whole); a block holds at
 * most MAX_SEGMENTS segments; a segment may hold no rows; availability blocks are kept so too;
 * a damaged segmented block is refused as corrupt.
 */
import { describe, expect, it } from "vitest";
import { ByteWriter } from "../../../src/codec/bytes.ts";
import { PointCodecError } from "../../../src/codec/errors.ts";
import { encodeRows } from "../../../src/metrics/rollup/block.ts";
import { blockSegments, decodeRows, MAX_SEGMENTS, SEGMENTED_BLOCK_VERSION, storedBody } from "../../../src/metrics/rollup/block-segments.ts";
import { KIND_AVAILABILITY, KIND_COUNTER, KIND_NUMERIC, type RollupKind } from "../../../src/metrics/rollup/rows.ts";
import { RollupSim, TEST_TIERS } from "../../helpers/rollup-sim.ts";

const T0 = 1_767_225_600_000; // 2026-01-01, on every tier's grid
const MIN = 60_000;

/** Chunk k of a day of a point every 20 s in chunks of 30 points (10 minutes), values varied enough to fill the sketches. */
function chunk(k: number, kind: RollupKind): [number, number][] {
  const pts: [number, number][] = [];
  for (let i = 0; i < 30; i++) {
    const j = k * 30 + i;
    pts.push([T0 + j * 20_000 + 1000, kind === KIND_COUNTER ? (j % 500) * 3 + (j % 7) : ((j * 31) % 97) - 20 + j / 1000]);
  }
  return pts;
}

/** Each block's rows encoded whole: equal rows give equal bytes. */
function canonical(sim: RollupSim): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, bytes] of sim.bytes) {
    const [tier, start] = key.split(":").map(Number) as [number, number];
    const step = TEST_TIERS[tier]!.step;
    out.set(key, Buffer.from(encodeRows(decodeRows(bytes, start, step), start, step)).toString("hex"));
  }
  return out;
}

describe("rollup blocks in segments", () => {
  for (const kind of [KIND_NUMERIC, KIND_COUNTER] as RollupKind[]) {
    it(`appends what each batch changed and reads back the rows of a whole roll-up (kind ${kind})`, () => {
      const batched = new RollupSim(kind);
      const seen = new Set<number>();
      for (let k = 0; k < 144; k++) {
        // A chunk sealed, then rolled up: a window of ten minutes.
        batched.seal(chunk(k, kind));
        batched.roll();
        for (const bytes of batched.bytes.values()) {
          const n = blockSegments(bytes).length;
          expect(n).toBeLessThanOrEqual(MAX_SEGMENTS);
          seen.add(n);
        }
      }
      // The day's 5-minute block went through every count of segments, and was written whole again.
      for (let n = 1; n <= MAX_SEGMENTS; n++) expect(seen.has(n)).toBe(true);
      expect([...batched.bytes.values()].some((b) => b[0] === SEGMENTED_BLOCK_VERSION)).toBe(true);

      const whole = new RollupSim(kind);
      for (let k = 0; k < 144; k++) whole.seal(chunk(k, kind));
      whole.roll(144);
      expect([...whole.bytes.values()].every((b) => blockSegments(b).length === 1)).toBe(true);
      expect(canonical(batched)).toEqual(canonical(whole));
    });
  }

  it("writes a new block, or one changed from its first bucket, whole", () => {
    const sim = new RollupSim(KIND_NUMERIC);
    sim.seal([
      [T0 + MIN, 1],
      [T0 + 20 * MIN, 2],
    ]);
    sim.roll(1);
    const bytes = sim.bytes.get(`0:${T0}`)!;
    expect(bytes[0]).toBe(1);
    const rows = decodeRows(bytes, T0, TEST_TIERS[0]!.step);
    const w = new ByteWriter();
    // Changed from bucket 0: whole, whatever it held before.
    expect(storedBody(rows, 0, bytes, T0, TEST_TIERS[0]!.step, w)[0]).toBe(1);
    // Changed from bucket 4: the old block, then the rows from bucket 4 on.
    const appended = storedBody(rows, 4, bytes, T0, TEST_TIERS[0]!.step, w).slice();
    expect(appended[0]).toBe(SEGMENTED_BLOCK_VERSION);
    expect(blockSegments(appended).map(([from]) => from)).toEqual([0, 4]);
    expect(Buffer.from(encodeRows(decodeRows(appended, T0, TEST_TIERS[0]!.step), T0, TEST_TIERS[0]!.step))).toEqual(Buffer.from(bytes));
    // Changed from after its last row (the buckets touched came out empty): a segment of no rows.
    const none = storedBody(rows, 50, bytes, T0, TEST_TIERS[0]!.step, w).slice();
    expect(blockSegments(none).map(([from]) => from)).toEqual([0, 50]);
    expect(Buffer.from(encodeRows(decodeRows(none, T0, TEST_TIERS[0]!.step), T0, TEST_TIERS[0]!.step))).toEqual(Buffer.from(bytes));
  });

  it("keeps availability blocks in segments too", () => {
    const sim = new RollupSim(KIND_AVAILABILITY);
    for (let k = 0; k < 12; k++) {
      sim.seal(Array.from({ length: 10 }, (_, i): [number, number] => [T0 + (k * 10 + i) * MIN + 1000, (k + i) % 3]));
      sim.roll();
    }
    const bytes = sim.bytes.get(`0:${T0}`)!;
    expect(blockSegments(bytes).length).toBeGreaterThan(1);
    const whole = new RollupSim(KIND_AVAILABILITY);
    for (let k = 0; k < 12; k++) whole.seal(Array.from({ length: 10 }, (_, i): [number, number] => [T0 + (k * 10 + i) * MIN + 1000, (k + i) % 3]));
    whole.roll(12);
    const step = TEST_TIERS[0]!.step;
    expect(Buffer.from(encodeRows(decodeRows(bytes, T0, step), T0, step))).toEqual(Buffer.from(whole.bytes.get(`0:${T0}`)!));
  });

  it("refuses a damaged segmented block as corrupt", () => {
    const sim = new RollupSim(KIND_NUMERIC);
    sim.seal([[T0 + MIN, 1]]);
    sim.seal([[T0 + 30 * MIN, 2]]);
    sim.roll(1);
    sim.roll(1);
    const bytes = sim.bytes.get(`0:${T0}`)!;
    expect(blockSegments(bytes).length).toBe(2);
    const step = TEST_TIERS[0]!.step;
    // Cut short, a length beyond the end, a first segment not from bucket 0, a segment holding a bucket before its start.
    const cut = bytes.subarray(0, bytes.length - 3);
    const longer = bytes.slice();
    longer[2] = 0x7f;
    const firstFrom = bytes.slice();
    firstFrom[1] = 3;
    const [, second] = blockSegments(bytes)[1]!;
    const early = new ByteWriter();
    early.byte(SEGMENTED_BLOCK_VERSION);
    for (const [from, seg] of blockSegments(bytes)) {
      early.varuint(from === 0 ? 0 : 20);
      early.varuint(seg.length);
      early.bytes(seg);
    }
    expect(second.length).toBeGreaterThan(0);
    for (const bad of [cut, longer, firstFrom, early.finish(), new Uint8Array([SEGMENTED_BLOCK_VERSION])]) {
      expect(() => decodeRows(bad, T0, step)).toThrow(PointCodecError);
    }
  });
});
