import { decodePoints, decodePointsInto, PointCodecError } from "../../../../src/codec/index.ts";
import type { RawSpan } from "../../../../src/metrics/rollup/roll.ts";
import { decodeChunk } from "../chunk-codec.ts";
import { type FloatAlloc, mergeRuns, type Run, sliceRun } from "../../../../src/metrics/run.ts";
import type { SeriesMeta } from "./state.ts";
import { releaseBuffer } from "../../../../src/runtime/release-buffer.ts";
import type { ChunkSource, RolledSeries } from "./rollup-source.ts";

/**
 * Sealed chunks as the roller reads them: decoded without entering the chunk cache (a
 * catch-up over years of chunks would only push out what dashboards read), the cache used
 * when it holds them already. A chunk that does not decode is told to the source (logged once)
 * and left out: its range reads fail (503) until it is restored, and its points are not in the tiers.
 */

export interface ChunkRef {
  cid: number;
  start: number;
  end: number;
  /** When it expires (chunks of schema version 1: their newest timestamp plus the retention). */
  expires: number;
}

function decodeOne(src: ChunkSource, sid: number, cid: number, alloc?: FloatAlloc): Run | undefined {
  const cached = src.cached(cid);
  const row = cached ? undefined : src.row(cid);
  try {
    if (cached) return cached.block ? decodeBlock(cached.block, cached.n, alloc) : cached.run;
    if (!row) return undefined;
    if (row.format === 0) return decodeChunk(row, true);
    if (!row.body) throw new PointCodecError("no point block");
    const run = decodeBlock(row.body, row.n, alloc);
    // Decoded into the roller's own memory: the block read from SQLite (a copy only this call
    // holds) is freed now rather than at the next collection.
    if (alloc) releaseBuffer(row.body, 0);
    return run;
  } catch (e) {
    if (!(e instanceof PointCodecError || e instanceof RangeError || e instanceof TypeError)) throw e;
    src.corrupt(sid, cid, (e as Error).message);
    return undefined;
  }
}

const runOf = (d: { ts: Float64Array; nums?: Float64Array }): Run => ({ ts: d.ts, nums: d.nums });

/** A chunk's block of `n` points (as its row says), decoded into `alloc`'s memory when given. */
function decodeBlock(bytes: Uint8Array, n: number, alloc?: FloatAlloc): Run {
  if (alloc) {
    const ts = alloc(n);
    const nums = alloc(n);
    try {
      const got = decodePointsInto(bytes, ts, nums, 0).points;
      return got === n ? { ts, nums } : { ts: ts.subarray(0, got), nums: nums.subarray(0, got) };
    } catch (e) {
      // More points than the row says: decoded as it would be without the arena.
      if (!(e instanceof RangeError)) throw e;
    }
  }
  return runOf(decodePoints(bytes));
}

/**
 * The points of `chunks` (in write order) in [lo, hi), the later chunk winning a timestamp;
 * merged into `alloc`'s memory when given (the roller's arena: valid until its reset).
 */
export function chunkPoints(src: ChunkSource, sid: number, cids: readonly number[], lo = Number.NEGATIVE_INFINITY, hi = Number.POSITIVE_INFINITY, alloc?: FloatAlloc): Run {
  const runs: Run[] = [];
  for (const cid of cids) {
    const r = decodeOne(src, sid, cid, alloc);
    if (r) runs.push(sliceRun(r, lo, hi));
  }
  return mergeRuns(runs, true, alloc);
}

/** The stored, unexpired chunks of the series up to chunk `upTo` that may hold points of [lo, hi), in write order. */
export function chunksIn(src: ChunkSource, series: RolledSeries, lo: number, hi: number, upTo: number): ChunkRef[] {
  const now = src.now();
  return src
    .spanChunks(series, lo, hi, upTo)
    .filter((r) => r[3] > now)
    .map(([cid, start, end, expires]) => ({ cid, start, end, expires }));
}

/**
 * The raw points the roller computes a span of finest buckets from. When every chunk holding
 * points there is one of the batch (`batch`: their ids and merged points), those points are
 * the span's: the usual case (new chunks at the end of a series) decodes nothing twice.
 */
export function rawSpan(src: ChunkSource, series: RolledSeries, lo: number, hi: number, upTo: number, batch?: { cids: ReadonlySet<number>; points: Run }, alloc?: FloatAlloc): RawSpan {
  const refs = chunksIn(src, series, lo, hi, upTo);
  if (batch && refs.every((r) => batch.cids.has(r.cid))) {
    const run = sliceRun(batch.points, lo, hi);
    return { lo, hi, ts: run.ts, vals: run.nums!, chunks: refs };
  }
  const run = chunkPoints(
    src,
    series.sid,
    refs.map((r) => r.cid),
    lo,
    hi,
    alloc,
  );
  return { lo, hi, ts: run.ts, vals: run.nums!, chunks: refs };
}

/** The head's points as ranges [lo, hi), flat, split where they are more than `gap` apart. */
export function headRanges(m: SeriesMeta, gap: number): number[] {
  const h = m.head;
  if (!h || h.length === 0) return [];
  const { ts } = h.columns();
  const out: number[] = [ts[0]!, ts[0]! + 1];
  for (let i = 1; i < ts.length; i++) {
    const t = ts[i]!;
    if (t - out[out.length - 1]! > gap) out.push(t, t + 1);
    else out[out.length - 1] = t + 1;
  }
  return out;
}
