import { CorruptDataError } from "../../../../src/sqlite/corrupt-data.ts";
import type { MetricType } from "../../../../src/metrics/model.ts";
import { mergeRuns } from "../run.ts";
import { insertChunks } from "./chunks.ts";
import { numArray, type PgContext } from "./context.ts";
import { blockRun } from "./points.ts";

/**
 * Sealing unsealed blocks into compressed chunks, and retention, for the PostgreSQL metrics
 * store. Any collector may run either at any time. A series is sealed in one transaction that
 * takes an advisory lock on it (another collector sealing it skips it), deletes its blocks with
 * RETURNING and inserts the chunks made of exactly those blocks, merged in write order (the
 * later block wins a timestamp): a point is in a chunk or still in a block, never both, never
 * neither, whatever commits or fails.
 */

/** First key of the advisory locks on series being sealed (the second is the sid). */
const SEAL_LOCK = 0x6f75746d; // "outm"

interface DueRow {
  sid: string;
}

/** Seals the series that have chunkPoints unsealed points or an old enough block (all with `force`). Returns how many it sealed. */
export async function sealDue(c: PgContext, force = false): Promise<number> {
  const now = c.now();
  // sum(n) counts a point written twice twice: such a series is sealed a little early.
  const due = await c.rows<DueRow>(
    force
      ? "SELECT DISTINCT sid FROM metric_blocks ORDER BY sid"
      : "SELECT sid FROM metric_blocks GROUP BY sid HAVING sum(n) >= ? OR min(written) <= ? ORDER BY sid",
    force ? [] : [c.chunkPoints, now - c.headMaxAgeMs],
  );
  let sealed = 0;
  for (const r of due) {
    try {
      if (await sealSeries(c, Number(r.sid))) sealed++;
    } catch (e) {
      // A corrupt block (logged once by blockRun) stays where it is; the other series seal on.
      if (!(e instanceof CorruptDataError)) throw e;
    }
  }
  return sealed;
}

interface BlockRow {
  bid: string;
  start_ts: number;
  end_ts: number;
  n: number;
  expires_at: string;
  body: Uint8Array;
}

/** Seals one series' unsealed blocks; false when another collector holds it. */
export function sealSeries(c: PgContext, sid: number): Promise<boolean> {
  return c.tx(async (t) => {
    const [lock] = await c.rows<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock(?, ?) AS ok", [SEAL_LOCK, sid % 2_147_483_647], t);
    if (!lock?.ok) return false;
    const [series] = await c.rows<{ type: MetricType; tenant: string; metric: string }>("SELECT type, tenant, metric FROM metric_series WHERE sid = ?", [sid], t);
    if (!series) {
      // Blocks of a write that raced the deletion of their series: never read, dropped here.
      await c.rows("DELETE FROM metric_blocks WHERE sid = ?", [sid], t);
      return false;
    }
    const now = c.now();
    const blocks = (await c.rows<BlockRow>("DELETE FROM metric_blocks WHERE sid = ? RETURNING bid, start_ts, end_ts, n, expires_at, body", [sid], t))
      // Expired blocks go without a chunk (reads already leave them out).
      .filter((b) => Number(b.expires_at) > now)
      .sort((a, b) => Number(a.bid) - Number(b.bid));
    if (blocks.length === 0) return true;
    const runs = blocks.map((b) => blockRun(c, series.tenant, series.type, series.metric, { kind: "block", seq: Number(b.bid), n: b.n, body: b.body }));
    const run = mergeRuns(runs, series.type !== "string");
    // A chunk expires with the latest of the blocks that may have given it points.
    await insertChunks(t, sid, run, c.chunkPoints, (a, z) => {
      const lo = run.ts[a]!;
      const hi = run.ts[z - 1]!;
      let e = 0;
      for (const b of blocks) if (b.start_ts <= hi && b.end_ts >= lo) e = Math.max(e, Number(b.expires_at));
      return e;
    });
    return true;
  });
}

/**
 * Deletes expired chunks and blocks, and sets the sealed bounds of the series that lost chunks
 * from those left. Reads hide expired points from the moment they expire.
 */
export async function enforceRetention(c: PgContext): Promise<number> {
  const now = c.now();
  return c.tx(async (t) => {
    const gone = await c.rows<{ sid: string }>("WITH d AS (DELETE FROM metric_chunks WHERE expires_at <= ? RETURNING sid) SELECT DISTINCT sid FROM d", [now], t);
    await c.rows("DELETE FROM metric_blocks WHERE expires_at <= ?", [now], t);
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
