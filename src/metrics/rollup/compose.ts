/**
 * Answers from a cover (cover.ts): its pieces appended in time order into one segment, stored
 * rows as they are, raw pieces point by point from the raw points read for them.
 */
import type { Cover } from "./cover.ts";
import { isRaw, PART_EDGE, PART_INTERIOR } from "./cover.ts";
import type { AvailabilityRows, NumericRows } from "./rows.ts";
import { lowerBound } from "./roll.ts";
import type { AvailSeg, NumSeg } from "./segment.ts";

/** Raw points read for the raw pieces of one series (ascending; may hold more than the pieces). */
export interface RawPoints {
  ts: Float64Array;
  vals: Float64Array;
}

export function rawPoints(ts: Float64Array, vals: Float64Array): RawPoints {
  return { ts, vals };
}

/** Appends the cover's pieces to `seg` (cleared by the caller). */
export function composeNumeric(c: Cover, raw: RawPoints | undefined, seg: NumSeg): void {
  for (const p of c.pieces) {
    if (isRaw(p)) {
      if (!raw) continue;
      for (let i = lowerBound(raw.ts, p.lo); i < raw.ts.length && raw.ts[i]! < p.hi; i++) seg.addPoint(raw.ts[i]!, raw.vals[i]!);
      continue;
    }
    const rows = p.found.rows as NumericRows;
    if (p.part !== PART_INTERIOR) seg.appendEdge(rows, p.found.j, p.a);
    if (p.part !== PART_EDGE) seg.appendInterior(rows, p.found.j);
  }
}

export function composeAvailability(c: Cover, raw: RawPoints | undefined, seg: AvailSeg): void {
  for (const p of c.pieces) {
    if (isRaw(p)) {
      if (!raw) continue;
      for (let i = lowerBound(raw.ts, p.lo); i < raw.ts.length && raw.ts[i]! < p.hi; i++) seg.addPoint(raw.ts[i]!, raw.vals[i]!);
      continue;
    }
    seg.appendRow(p.found.rows as AvailabilityRows, p.found.j);
  }
}
