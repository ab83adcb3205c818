import type { MetricType } from "../../../../src/metrics/model.ts";
import { decodeRows } from "../../../../src/metrics/rollup/block-segments.ts";
import { type BlockRequest, type RollupSeriesInfo, rollupKind } from "../../../../src/metrics/rollup/reads.ts";
import type { Rows } from "../../../../src/metrics/rollup/rows.ts";
import type { RollupBlockCache } from "../rollup-cache.ts";
import { headRanges } from "./rollup-chunks.ts";
import type { ChunkSource } from "./rollup-source.ts";
import type { UnrolledChunks } from "./rollup-unrolled.ts";
import type { StoreState } from "./state.ts";

/** Queries' reads of the SQLite rollup tiers (rollups.ts implements RollupReads with these). */

/**
 * The series `refs` as the tier reads see them: their handle and kind, and the ranges still to
 * read raw (chunks not rolled up, the head's points, split where more than `gap` apart).
 */
export function rolledSeries(s: StoreState, unrolled: UnrolledChunks, gap: number, tenant: string, refs: readonly { type: MetricType; id: string }[]): (RollupSeriesInfo | undefined)[] {
  s.lastReadAt = performance.now();
  return refs.map((r) => {
    const m = s.find(tenant, r.type, r.id);
    const kind = m && rollupKind(m.type);
    if (!m || kind === undefined) return undefined;
    return { handle: m.sid, kind, pending: [...unrolled.range(m.sid), ...headRanges(m, gap)] };
  });
}

/** Stored blocks, from the cache or the table (then cached); `counters` count those found and their stored bytes. */
export function readBlocks(cache: RollupBlockCache, source: ChunkSource, counters: { blocksRead: number; bytesRead: number }, requests: readonly BlockRequest[]): (Rows | undefined)[] {
  return requests.map((q) => {
    const step = q.step;
    const got = cache.getOrLoad(q.handle, step, q.start, () => {
      const body = source.block(q.handle, step, q.start);
      return body ? { rows: decodeRows(body, q.start, step), stored: body.length } : { rows: undefined, stored: 0 };
    });
    if (got.rows) {
      counters.blocksRead++;
      counters.bytesRead += got.stored;
    }
    return got.rows;
  });
}
