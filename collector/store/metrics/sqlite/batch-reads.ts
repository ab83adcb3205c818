import type { MetricType } from "../../../../src/metrics/model.ts";
import type { SeriesReader } from "../types.ts";
import { CHUNK_FIELDS, type ChunkList } from "./chunk-lists.ts";
import { type ChunkIds, mayHaveChunks, readParts, readSeries } from "./reads.ts";
import { isNumeric, LIST_BATCH, type SeriesMeta, type StoreState, WINDOW_MS } from "./state.ts";

/**
 * Reads of many series over one range (a PromQL selection): the chunk lists of up to
 * LIST_BATCH series are looked up in one statement, for the series asked for and those after it
 * in the order given — SQLite's cost per statement was most of a per-series lookup — and kept
 * between queries (chunk-lists.ts), which keeps them exact as chunks are added and deleted.
 * Each read answers what readSeries/readParts answer: a list the cache could not keep is used
 * only while no chunk was added or deleted since it was looked up (StoreState.chunkEpoch), and
 * the range and expiry are checked at the read, as the per-series statement checks them.
 */

/** Largest start_ts bound a statement is given (an open-ended list). */
const OPEN_END = Number.MAX_SAFE_INTEGER;

export function seriesReader(s: StoreState, tenant: string, series: readonly { type: MetricType; id: string }[], start: number, end: number): SeriesReader {
  const from = start - WINDOW_MS;
  // A query ending within the last window reaches the present: its lists are looked up
  // open-ended, so that the next refresh (a later end) finds them kept.
  const to = end >= s.now() - WINDOW_MS ? Number.POSITIVE_INFINITY : end;
  /** The lists this reader looked up, by sid, each used once; valid while chunkEpoch is unchanged. */
  let own = new Map<number, ChunkList>();
  let epoch = s.chunkEpoch;
  const meta = (i: number): SeriesMeta | undefined => {
    const x = series[i];
    const m = x && s.find(tenant, x.type, x.id);
    return m && isNumeric(m.type) ? m : undefined;
  };
  const listOf = (m: SeriesMeta): ChunkList | undefined => {
    if (s.chunkEpoch !== epoch) {
      own = new Map();
      epoch = s.chunkEpoch;
    }
    const l = s.lists.get(m.sid, from, to) ?? own.get(m.sid);
    own.delete(m.sid);
    return l;
  };

  /** Looks up the lists of series i and of the LIST_BATCH - 1 after it that are not kept. */
  const lookUp = (i: number) => {
    const sids: number[] = [];
    for (let j = i; j < Math.min(series.length, i + LIST_BATCH); j++) {
      const m = meta(j);
      if (!m || (j > i && (own.has(m.sid) || s.lists.get(m.sid, from, to))) || sids.includes(m.sid) || !mayHaveChunks(s, m, start)) continue;
      sids.push(m.sid);
    }
    if (sids.length === 0) return;
    const args: number[] = [...sids];
    while (args.length < LIST_BATCH) args.push(-1);
    s.lists.lookups++;
    const found = new Map<number, number[]>(sids.map((sid) => [sid, []]));
    const rows = s.st.selectChunkLists.values(...args, from, Math.min(to, OPEN_END)) as [number, number, number, number, number | null][];
    for (const [sid, cid, startTs, endTs, expiresAt] of rows) found.get(sid)!.push(cid, startTs, endTs, expiresAt ?? Number.NaN);
    for (const [sid, chunks] of found) {
      const l: ChunkList = { from, to, chunks };
      s.lists.set(sid, l);
      // Also here: the cache may evict it before this reader gets to it (a small cache).
      own.set(sid, l);
    }
  };

  /** ChunkIds of series i, from its list. */
  const idsOf =
    (i: number): ChunkIds =>
    (_, m) => {
      if (!mayHaveChunks(s, m, start)) return [];
      let l = listOf(m);
      if (!l) {
        lookUp(i);
        l = listOf(m);
      }
      if (!l) return [];
      const now = s.now();
      const retention = s.retentionMs(m);
      const ids: number[] = [];
      const c = l.chunks;
      // As the per-series statement: start_ts in [start - WINDOW_MS, end), end_ts >= start,
      // coalesce(expires_at, end_ts + retention) > now.
      for (let k = 0; k < c.length; k += CHUNK_FIELDS) {
        const startTs = c[k + 1]!;
        const endTs = c[k + 2]!;
        const expiresAt = c[k + 3]!;
        if (startTs >= from && startTs < end && endTs >= start && (Number.isNaN(expiresAt) ? endTs + retention : expiresAt) > now) ids.push(c[k]!);
      }
      return ids;
    };

  return {
    async readSeries(i, buffers) {
      const x = series[i];
      return x && readSeries(s, tenant, x.type, x.id, start, end, buffers, idsOf(i));
    },
    async readParts(i) {
      const x = series[i];
      return x && readParts(s, tenant, x.type, x.id, start, end, idsOf(i));
    },
  };
}
