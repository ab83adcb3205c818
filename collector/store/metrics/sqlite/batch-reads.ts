import type { MetricType } from "../../../../src/metrics/model.ts";
import type { SeriesReader } from "../types.ts";
import { type ChunkIds, mayHaveChunks, readParts, readSeries } from "./reads.ts";
import { isNumeric, key, LIST_BATCH, type SeriesMeta, type StoreState, WINDOW_MS } from "./state.ts";

/**
 * Reads of many series over one range (a PromQL selection): the chunk lists of up to
 * LIST_BATCH series are looked up in one statement, for the series asked for and those after it
 * in the order given — SQLite's cost per statement was most of a per-series lookup. Each read
 * answers what readSeries/readParts answer: a list is used only while no chunk was added or
 * deleted since it was looked up (StoreState.chunkEpoch) and for the same series (sid), and the
 * expiry is checked at the read, as the per-series statement checks it.
 */

/** A chunk that may hold points of the range: [cid, end_ts, expires_at]. */
type Listed = [number, number, number | null];

export function seriesReader(s: StoreState, tenant: string, series: readonly { type: MetricType; id: string }[], start: number, end: number): SeriesReader {
  /** Looked-up lists by index, each used once (a second read of a series looks it up again). */
  const lists = new Map<number, { sid: number; chunks: Listed[] }>();
  let epoch = s.chunkEpoch;
  const meta = (i: number): SeriesMeta | undefined => {
    const x = series[i];
    const m = x && s.series.get(key(tenant, x.type, x.id));
    return m && isNumeric(m.type) ? m : undefined;
  };

  /** Looks up the lists of series i and of those after it not looked up yet. */
  const lookUp = (i: number) => {
    const sids: number[] = [];
    /** sid → the indexes that read it (a series given twice is read twice). */
    const at = new Map<number, Listed[][]>();
    for (let j = i; j < Math.min(series.length, i + LIST_BATCH); j++) {
      if (j > i && lists.has(j)) break;
      const m = meta(j);
      if (!m) continue;
      const chunks: Listed[] = [];
      lists.set(j, { sid: m.sid, chunks });
      if (!mayHaveChunks(s, m, start)) continue;
      const same = at.get(m.sid);
      if (same) same.push(chunks);
      else {
        at.set(m.sid, [chunks]);
        sids.push(m.sid);
      }
    }
    if (sids.length === 0) return;
    const args: number[] = [...sids];
    while (args.length < LIST_BATCH) args.push(-1);
    for (const [sid, cid, endTs, expiresAt] of s.st.selectChunkLists.values(...args, start - WINDOW_MS, end, start) as [number, number, number, number | null][]) {
      for (const chunks of at.get(sid)!) chunks.push([cid, endTs, expiresAt]);
    }
  };

  /** ChunkIds of series i, from its looked-up list. */
  const idsOf =
    (i: number): ChunkIds =>
    (_, m) => {
      if (s.chunkEpoch !== epoch) {
        lists.clear();
        epoch = s.chunkEpoch;
      }
      let l = lists.get(i);
      if (!l || l.sid !== m.sid) {
        lists.delete(i);
        lookUp(i);
        l = lists.get(i);
      }
      lists.delete(i);
      if (!l || l.sid !== m.sid || !mayHaveChunks(s, m, start)) return [];
      const now = s.now();
      const retention = s.retentionMs(m);
      const ids: number[] = [];
      // As the per-series statement: coalesce(expires_at, end_ts + retention) > now.
      for (const [cid, endTs, expiresAt] of l.chunks) if ((expiresAt ?? endTs + retention) > now) ids.push(cid);
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
