import type { Database, Statement } from "bun:sqlite";

/**
 * Per series, the chunks after the lowest mark that no series mark of the window covers yet. NOT
 * INDEXED: the planner chose to scan the whole series index (grouped by sid already) rather than
 * the chunk ids after the mark, a scan of every chunk stored at each window's close (5.4 ms for
 * 108,000 chunks against 0.4 by ids; slow series sealed by the heads' budget store hundreds of
 * millions in a week).
 */
export const UNROLLED_SQL =
  "SELECT c.sid, min(c.start_ts), max(c.end_ts), max(c.cid) FROM chunks c NOT INDEXED LEFT JOIN rollup_series_marks m ON m.sid = c.sid WHERE c.cid > ? AND c.cid > coalesce(m.mark, 0) GROUP BY c.sid";

/** The SQLite roller's writing and bookkeeping statements (rollups.ts), prepared once per store; what a step reads is rollup-source.ts'. */
export function prepareRollupStatements(db: Database): Record<string, Statement> {
  const q = (sql: string) => db.prepare(sql);
  return {
    upsert: q(
      "INSERT INTO rollups (sid, step, block_start, written, body) VALUES (?, ?, ?, ?, ?) ON CONFLICT (sid, step, block_start) DO UPDATE SET written = excluded.written, body = excluded.body",
    ),
    remove: q("DELETE FROM rollups WHERE sid = ? AND step = ? AND block_start = ?"),
    setMark: q("INSERT INTO rollup_progress (step, mark) VALUES (?, ?) ON CONFLICT (step) DO UPDATE SET mark = excluded.mark"),
    setSeriesMark: q("INSERT INTO rollup_series_marks (sid, mark) VALUES (?, ?) ON CONFLICT (sid) DO UPDATE SET mark = excluded.mark"),
    pendingChunks: q("SELECT count(*) AS c FROM chunks WHERE cid > ?"),
    unrolled: q(UNROLLED_SQL),
    seriesBlocks: q("SELECT block_start, body FROM rollups WHERE sid = ? AND step = ? ORDER BY block_start"),
  };
}

/** Each stored tier's mark (the id of the last chunk it holds), by step. */
export function storedMarks(db: Database): Map<number, number> {
  return new Map((db.query("SELECT step, mark FROM rollup_progress").all() as { step: number; mark: number }[]).map((r) => [r.step, r.mark]));
}
