import { CorruptDataError } from "../../../../src/sqlite/corrupt-data.ts";
import type { MetricType } from "../../../../src/metrics/model.ts";
import { mergeRuns } from "../../../../src/metrics/run.ts";
import { insertChunks } from "./chunks.ts";
import { numArray, type PgContext } from "./context.ts";
import { METRIC_PARTITIONS } from "./partition-step.ts";
import { blockRun } from "./points.ts";

/**
 * Sealing unsealed blocks into compressed chunks, and retention, for the PostgreSQL metrics
 * store, over the work partitions given (the ones whose lease this collector holds; all of
 * them for a collector without leases). Any collector may run either at any time, on any
 * partition: a former holder that stalled past its lease does no harm. A series is sealed in one transaction that
 * takes an advisory lock on it (another collector sealing it skips it), deletes its blocks with
 * RETURNING and inserts the chunks made of exactly those blocks, merged in write order (the
 * later block wins a timestamp): a point is in a chunk or still in a block, never both, never
 * neither, whatever commits or fails.
 */

/** First key of the advisory locks on series being sealed (the second is the sid). */
const SEAL_LOCK = 0x6f75746d; // "outm"

interface DueRow {
  part: number;
  sid: string;
}

/** Every partition: the work of a collector without leases. */
export const ALL_PARTITIONS: readonly number[] = Array.from({ length: METRIC_PARTITIONS }, (_, i) => i);

/**
 * Seals the series of partitions `parts` that have chunkPoints unsealed points or an old enough
 * block (all with `force`). Returns how many it sealed.
 */
export async function sealDue(c: PgContext, parts: readonly number[], force = false): Promise<number> {
  if (parts.length === 0) return 0;
  const now = c.now();
  // The blocks' primary key (part, sid, bid) INCLUDE (n, written): one index range per
  // partition, in sid order, aggregated without a sort.
  // sum(n) counts a point written twice twice: such a series is sealed a little early.
  const due = await c.rows<DueRow>(
    force
      ? "SELECT DISTINCT part, sid FROM metric_blocks WHERE part = ANY(?::int[]) ORDER BY part, sid"
      : "SELECT part, sid FROM metric_blocks WHERE part = ANY(?::int[]) GROUP BY part, sid HAVING sum(n) >= ? OR min(written) <= ? ORDER BY part, sid",
    force ? [numArray(parts)] : [numArray(parts), c.chunkPoints, now - c.headMaxAgeMs],
  );
  let sealed = 0;
  for (const r of due) {
    try {
      if (await sealSeries(c, Number(r.part), Number(r.sid))) sealed++;
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

/** Seals one series' unsealed blocks (of partition `part`); false when another collector holds it. */
export function sealSeries(c: PgContext, part: number, sid: number): Promise<boolean> {
  return c.tx(async (t) => {
    const [lock] = await c.rows<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock(?, ?) AS ok", [SEAL_LOCK, sid % 2_147_483_647], t);
    if (!lock?.ok) return false;
    const [series] = await c.rows<{ type: MetricType; tenant: string; metric: string }>("SELECT type, tenant, metric FROM metric_series WHERE sid = ?", [sid], t);
    if (!series) {
      // Blocks of a write that raced the deletion of their series: never read, dropped here.
      await c.rows("DELETE FROM metric_blocks WHERE part = ? AND sid = ?", [part, sid], t);
      return false;
    }
    const now = c.now();
    const blocks = (await c.rows<BlockRow>("DELETE FROM metric_blocks WHERE part = ? AND sid = ? RETURNING bid, start_ts, end_ts, n, expires_at, body", [part, sid], t))
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
 * Deletes the expired chunks and blocks of partitions `parts`, and sets the sealed bounds of the
 * series that lost chunks from those left. Returns how many series lost chunks. Reads hide
 * expired points from the moment they expire.
 */
export async function enforceRetention(c: PgContext, parts: readonly number[]): Promise<number> {
  if (parts.length === 0) return 0;
  const now = c.now();
  const inParts = numArray(parts);
  return c.tx(async (t) => {
    const gone = await c.rows<{ sid: string }>(
      `WITH d AS (DELETE FROM metric_chunks c USING metric_series s WHERE c.expires_at <= ? AND s.sid = c.sid AND s.part = ANY(?::int[]) RETURNING c.sid)
       SELECT DISTINCT sid FROM d`,
      [now, inParts],
      t,
    );
    await c.rows("DELETE FROM metric_blocks WHERE part = ANY(?::int[]) AND expires_at <= ?", [inParts, now], t);
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
