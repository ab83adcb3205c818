import { flushDue } from "./flush.ts";
import type { SeriesMeta, StoreState } from "./state.ts";

/** The background work of the SQLite metrics store: flushing heads and deleting expired chunks. */

/** How often expired chunks are deleted; reads hide them from the moment they expire. */
const RETENTION_PERIOD_MS = 60_000;

interface Bounds {
  minTs: number | undefined;
  maxTs: number | undefined;
}

export function maintain(s: StoreState): void {
  s.headSegments.idle(s.now());
  try {
    flushDue(s, false, true);
    if (s.now() - s.lastRetentionRun >= RETENTION_PERIOD_MS) {
      enforceRetention(s);
      s.rollups?.retention();
    }
    // After the flush: the chunks it sealed are rolled up, a slice at a time (docs/storage.md, "Rollup tiers").
    s.rollups?.background();
  } catch (e) {
    // A full disk is logged once by the storage health; the heads keep their points and the
    // next run retries.
    if (s.opts.health?.report(e, "metrics") === undefined) s.opts.log?.error("metrics maintenance failed", { err: String(e) });
  }
}

/**
 * Deletes the chunks whose retention has passed since they were written, and updates the
 * min/max timestamps of the series that lost some. Chunks from before version 2 expire by
 * their newest timestamp, as they did when they were written.
 */
export function enforceRetention(s: StoreState): void {
  const now = s.now();
  s.lastRetentionRun = now;
  s.chunkEpoch++;
  const touched = new Set<number>();
  const bounds: [SeriesMeta, Bounds][] = [];
  let legacyLeft = s.legacyChunks;
  s.db.transaction(() => {
    for (const row of s.st.deleteExpired.all(now) as { sid: number }[]) touched.add(row.sid);
    if (s.legacyChunks) {
      for (const m of s.bySid.values()) if (s.st.deleteExpiredLegacy.run(m.sid, s.retentionMs(m), now).changes > 0) touched.add(m.sid);
      legacyLeft = s.db.query("SELECT 1 FROM chunks WHERE expires_at IS NULL LIMIT 1").get() !== null;
    }
    for (const sid of touched) {
      const m = s.bySid.get(sid);
      if (!m) continue;
      const b = boundsLeft(s, m);
      s.st.updateSeriesBounds.run(b.minTs ?? null, b.maxTs ?? null, m.sid);
      bounds.push([m, b]);
    }
  })();
  // Memory follows only once the deletion is committed.
  for (const sid of touched) s.lists.drop(sid);
  s.legacyChunks = legacyLeft;
  for (const [m, b] of bounds) {
    m.minTs = b.minTs;
    m.maxTs = b.maxTs;
  }
  if (touched.size) s.opts.log?.info("retention removed expired chunks", { series: touched.size });
}

/** min/max timestamps of the remaining chunks and the head. */
function boundsLeft(s: StoreState, m: SeriesMeta): Bounds {
  const row = s.st.seriesBounds.get(m.sid) as { lo: number | null; hi: number | null };
  let lo = row.lo ?? Number.POSITIVE_INFINITY;
  let hi = row.hi ?? Number.NEGATIVE_INFINITY;
  // The head's columns are sorted: its first and last points are its bounds.
  const ts = m.head?.columns().ts;
  if (ts && ts.length > 0) {
    lo = Math.min(lo, ts[0]!);
    hi = Math.max(hi, ts[ts.length - 1]!);
  }
  return { minTs: Number.isFinite(lo) ? lo : undefined, maxTs: Number.isFinite(hi) ? hi : undefined };
}
