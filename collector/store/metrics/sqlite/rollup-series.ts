import type { Statement } from "bun:sqlite";
import { decodeRows } from "../../../../src/metrics/rollup/block.ts";
import { type BlockChange, SeriesRoll } from "../../../../src/metrics/rollup/roll.ts";
import type { RollScratch } from "../../../../src/metrics/rollup/rows-builder.ts";
import type { RollupTier } from "../../../../src/metrics/rollup/tiers.ts";
import { chunkPoints, rawSpan } from "./rollup-chunks.ts";
import type { SeriesMeta, StoreState } from "./state.ts";

/**
 * The blocks a series' chunks `cids` change, in the tiers `updating` (the roller's step,
 * rollups.ts): their points, the stored blocks they fall in (`block`: the statement reading
 * one), and the raw points of the spans to compute again. Everything is made in `scratch`,
 * valid until its next reset (the next step).
 */
export function rollSeriesChunks(
  s: StoreState,
  block: Statement,
  configured: readonly RollupTier[],
  scratch: RollScratch,
  m: SeriesMeta,
  kind: number,
  cids: number[],
  updating: number[],
  upTo: number,
): BlockChange[] {
  scratch.reset();
  const alloc = scratch.floats.take;
  const points = chunkPoints(s, m, cids, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, alloc);
  if (points.ts.length === 0) return [];
  const roll = new SeriesRoll(kind as 0 | 1 | 2, configured, updating, { ts: points.ts, vals: points.nums! }, s.now(), scratch);
  for (const ref of roll.blocksNeeded()) {
    const step = configured[ref.tier]!.step;
    const row = block.get(m.sid, step, ref.start) as { body: Uint8Array } | null;
    roll.loaded(ref, row ? decodeRows(row.body, ref.start, step, alloc) : undefined);
  }
  const batch = { cids: new Set(cids), points };
  const raw = roll.planRaw().map(([lo, hi]) => rawSpan(s, m, lo, hi, upTo, batch, alloc));
  return roll.compute(raw);
}
