import type { SQL } from "bun";
import type { MetricType, Tags } from "../../../../src/metrics/model.ts";
import { encodeChunkBlock } from "../sqlite/chunks.ts";
import { chunkPieces } from "../pieces.ts";
import type { Run } from "../run.ts";
import { numArray, type PgContext } from "./context.ts";

/**
 * Sealing unsealed points into compressed chunks, and retention, for the PostgreSQL metrics
 * store. Any collector may run either at any time. A series is sealed in one transaction that
 * takes an advisory lock on it (another collector sealing it skips it), deletes its rows with
 * RETURNING and inserts the chunks made of exactly those rows: a row is in a chunk or still a
 * row, never both, never neither, whatever commits or fails.
 */

/** First key of the advisory locks on series being sealed (the second is the sid). */
const SEAL_LOCK = 0x6f75746d; // "outm"

interface DueRow {
  sid: string;
}

/** Seals the series that have chunkPoints unsealed points or an old enough one (all with `force`). Returns how many it sealed. */
export async function sealDue(c: PgContext, force = false): Promise<number> {
  const now = c.now();
  const due = await c.rows<DueRow>(
    force
      ? "SELECT DISTINCT sid FROM metric_points ORDER BY sid"
      : "SELECT sid FROM metric_points GROUP BY sid HAVING count(*) >= ? OR min(written) <= ? ORDER BY sid",
    force ? [] : [c.chunkPoints, now - c.headMaxAgeMs],
  );
  let sealed = 0;
  for (const r of due) if (await sealSeries(c, Number(r.sid))) sealed++;
  return sealed;
}

interface PointRow {
  ts: number;
  num: number | null;
  str: string | null;
  tags: string | null;
  expires_at: string;
}

/** Seals one series' unsealed points; false when another collector holds it. */
export function sealSeries(c: PgContext, sid: number): Promise<boolean> {
  return c.tx(async (t) => {
    const [lock] = await c.rows<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock(?, ?) AS ok", [SEAL_LOCK, sid % 2_147_483_647], t);
    if (!lock?.ok) return false;
    const [series] = await c.rows<{ type: MetricType }>("SELECT type FROM metric_series WHERE sid = ?", [sid], t);
    if (!series) return false;
    const now = c.now();
    const rows = (await c.rows<PointRow>("DELETE FROM metric_points WHERE sid = ? RETURNING ts, num, str, tags, expires_at", [sid], t))
      // Expired rows go without a chunk (reads already leave them out).
      .filter((r) => Number(r.expires_at) > now)
      .sort((a, b) => a.ts - b.ts);
    if (rows.length === 0) return true;
    await insertChunks(c, t, sid, series.type !== "string", rows);
    await c.rows("UPDATE metric_series SET min_ts = least(min_ts, ?), max_ts = greatest(max_ts, ?) WHERE sid = ?", [rows[0]!.ts, rows.at(-1)!.ts, sid], t);
    return true;
  });
}

async function insertChunks(c: PgContext, t: SQL, sid: number, numeric: boolean, rows: PointRow[]): Promise<void> {
  const anyTags = rows.some((r) => r.tags !== null);
  const run: Run = {
    ts: Float64Array.from(rows, (r) => r.ts),
    nums: numeric ? Float64Array.from(rows, (r) => r.num ?? Number.NaN) : undefined,
    strs: numeric ? undefined : rows.map((r) => r.str ?? ""),
    tags: anyTags ? rows.map((r) => (r.tags ? (JSON.parse(r.tags) as Tags) : undefined)) : undefined,
  };
  for (const [a, b] of chunkPieces(run.ts, c.chunkPoints)) {
    const part: Run = { ts: run.ts.subarray(a, b), nums: run.nums?.subarray(a, b), strs: run.strs?.slice(a, b), tags: run.tags?.slice(a, b) };
    // Points written at different times share a chunk: it lives as long as the longest-lived
    // of them (a point is kept up to a seal period longer, never dropped early).
    let expiresAt = 0;
    for (let i = a; i < b; i++) expiresAt = Math.max(expiresAt, Number(rows[i]!.expires_at));
    await c.rows("INSERT INTO metric_chunks (sid, start_ts, end_ts, n, expires_at, body) VALUES (?, ?, ?, ?, ?, ?)", [sid, run.ts[a]!, run.ts[b - 1]!, b - a, expiresAt, encodeChunkBlock(part)], t);
  }
}

/**
 * Deletes expired chunks and rows, and sets the sealed bounds of the series that lost chunks
 * from those left. Reads hide expired points from the moment they expire.
 */
export async function enforceRetention(c: PgContext): Promise<number> {
  const now = c.now();
  return c.tx(async (t) => {
    const gone = await c.rows<{ sid: string }>("WITH d AS (DELETE FROM metric_chunks WHERE expires_at <= ? RETURNING sid) SELECT DISTINCT sid FROM d", [now], t);
    await c.rows("DELETE FROM metric_points WHERE expires_at <= ?", [now], t);
    if (gone.length > 0) {
      await c.rows(
        `UPDATE metric_series s SET min_ts = (SELECT min(start_ts) FROM metric_chunks c WHERE c.sid = s.sid),
           max_ts = (SELECT max(end_ts) FROM metric_chunks c WHERE c.sid = s.sid)
         WHERE s.sid = ANY(?::bigint[])`,
        [numArray(gone.map((g) => Number(g.sid)))],
        t,
      );
      c.log?.info("retention removed expired chunks", { series: gone.length });
    }
    return gone.length;
  });
}
