import { decodeRows } from "../../../../src/metrics/rollup/block-segments.ts";
import { type BlockChange, SeriesRoll } from "../../../../src/metrics/rollup/roll.ts";
import type { RollScratch } from "../../../../src/metrics/rollup/rows-builder.ts";
import type { RollupTier } from "../../../../src/metrics/rollup/tiers.ts";
import { chunkPoints, rawSpan } from "./rollup-chunks.ts";
import type { ChunkSource, RolledSeries } from "./rollup-source.ts";

/** Points of one series one roller step takes at most (a step of about 100 ms at most). */
export const BATCH_POINTS = 200_000;

/** One step of one series in the open window: what to roll up, from which chunks. */
export interface StepRequest {
  sid: number;
  /** undefined: a series with no tiers (strings); its mark moves past its chunks all the same. */
  kind: RolledSeries["kind"] | undefined;
  retentionMs: number;
  /** The window's chunks (low, high]; those up to the series' own mark are done already. */
  low: number;
  high: number;
  /** The earliest start of the series' chunks in the window (−Infinity: not known, every chunk of the series is looked at). */
  from: number;
  /** Indexes of the tiers the window updates. */
  updating: number[];
  batchPoints?: number;
}

/** What a step computed: the blocks to write, and the series' new mark. */
export interface StepResult {
  sid: number;
  /** The last chunk the step covers (0: the series has no chunk left in the window). */
  end: number;
  /** No chunk of the series is left in the window after `end`. */
  done: boolean;
  chunks: number;
  changes: StoredChange[];
}

/** A block's change with the body it was computed from (undefined: a new block), to append to (block-segments.ts). */
export interface StoredChange extends BlockChange {
  old: Uint8Array | undefined;
}

/**
 * The blocks a series' chunks `cids` change, in the tiers `updating`: their points, the stored
 * blocks they fall in, and the raw points of the spans to compute again. Everything is made in
 * `scratch`, valid until its next reset (the next step).
 */
export function rollSeriesChunks(
  src: ChunkSource,
  configured: readonly RollupTier[],
  scratch: RollScratch,
  series: RolledSeries,
  cids: number[],
  updating: number[],
  upTo: number,
): StoredChange[] {
  scratch.reset();
  const alloc = scratch.floats.take;
  const points = chunkPoints(src, series.sid, cids, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY, alloc);
  if (points.ts.length === 0) return [];
  const roll = new SeriesRoll(series.kind, configured, updating, { ts: points.ts, vals: points.nums! }, src.now(), scratch);
  const bodies = new Map<string, Uint8Array>();
  for (const ref of roll.blocksNeeded()) {
    const step = configured[ref.tier]!.step;
    const body = src.block(series.sid, step, ref.start);
    if (body) bodies.set(`${ref.tier}:${ref.start}`, body);
    roll.loaded(ref, body ? decodeRows(body, ref.start, step, alloc) : undefined);
  }
  const batch = { cids: new Set(cids), points };
  const raw = roll.planRaw().map(([lo, hi]) => rawSpan(src, series, lo, hi, upTo, batch, alloc));
  return roll.compute(raw).map((c) => ({ ...c, old: bodies.get(`${c.tier}:${c.start}`) }));
}

/**
 * The next step of a series in the window: its chunks after its own mark (up to `batchPoints`
 * points of them), rolled up. The same on the store's thread and in the roller's worker; the
 * store writes the result with the mark in one transaction.
 */
export function computeSeriesStep(src: ChunkSource, configured: readonly RollupTier[], scratch: RollScratch, q: StepRequest): StepResult {
  src.releaseRows();
  const rows = src.seriesChunks(q.sid, Math.max(q.low, src.seriesMark(q.sid)), q.high, q.from);
  const now = src.now();
  const cids: number[] = [];
  let points = 0;
  let end = 0;
  for (const [cid, expires] of rows) {
    // Expired (chunks of version 1 expire by time, checked on reading): not worth a rollup.
    if (expires !== 0 && expires <= now) {
      end = cid;
      continue;
    }
    // The row is read here once, and kept for the decode (a chunk deleted meanwhile counts none).
    const n = src.pointsOf(cid) ?? 0;
    if (cids.length > 0 && points + n > (q.batchPoints ?? BATCH_POINTS)) break;
    end = cid;
    points += n;
    cids.push(cid);
  }
  const done = end === 0 || end === rows.at(-1)![0];
  const changes = end !== 0 && cids.length > 0 && q.kind !== undefined ? rollSeriesChunks(src, configured, scratch, { sid: q.sid, kind: q.kind, retentionMs: q.retentionMs }, cids, q.updating, end) : [];
  return { sid: q.sid, end, done, chunks: cids.length, changes };
}
