import type { SQL } from "bun";
import { decodePoints } from "../../../../src/codec/index.ts";
import { DAY_MS, type MetricType } from "../../../../src/metrics/model.ts";
import { encodeRows } from "../../../../src/metrics/rollup/block.ts";
import { decodeRows } from "../../../../src/metrics/rollup/block-segments.ts";
import { type RawSpan, SeriesRoll } from "../../../../src/metrics/rollup/roll.ts";
import type { RollupKind, Rows } from "../../../../src/metrics/rollup/rows.ts";
import { type RollupTier, tiersText } from "../../../../src/metrics/rollup/tiers.ts";
import { mergeRuns, type Run, sliceRun } from "../../../../src/metrics/run.ts";
import { type BlockRequest, type RollupReads, type RollupSeriesInfo, type RollupStats, rollupKind } from "../../../../src/metrics/rollup/reads.ts";
import { numArray, type PgContext, textArray } from "./context.ts";

/** Key of the advisory locks on series being rolled up (the second key is the sid). */
const ROLL_LOCK = 0x6f757472; // "outr"
/** Queue entries one roller transaction takes at most. */
const BATCH = 512;

interface QueueRow {
  part: number;
  sid: string;
  cid: string;
  step: string;
}

interface ChunkRow {
  cid: string;
  start_ts: number;
  end_ts: number;
  expires_at: string;
  body: Uint8Array;
}

/**
 * The rollup tiers of the PostgreSQL metrics store (docs/storage.md, "Rollup tiers";
 * docs/scale-out.md). Sealing queues each chunk it writes (a trigger on metric_chunks, in the
 * seal's transaction); the lease holder of a partition rolls up its queue in transactions that
 * write the blocks and delete the queue entries they used, under an advisory lock per series:
 * a chunk is rolled up once, whatever fails or which collector held the partition. A block is
 * computed from the chunks no longer queued plus the batch's (the stores' common rule,
 * src/metrics/rollup/roll.ts). Tiers follow the collector's configuration per partition: a
 * tier added is computed from the chunks still stored (queued again for that tier alone), a
 * tier taken out is deleted; every collector of a database should be given the same tiers.
 */
export class PgRollups implements RollupReads {
  private readonly counters = { chunksRolled: 0, blocksWritten: 0, seconds: 0, blocksRead: 0, bytesRead: 0 };
  private caughtUpAt: number;
  private pending = 0;
  /** Partitions whose tiers were brought in line with the configuration. */
  private readonly reconciled = new Set<number>();

  constructor(
    private readonly c: PgContext,
    readonly tiers: readonly RollupTier[],
  ) {
    this.caughtUpAt = c.now();
    if (tiers.length > 0) c.log?.info("rollup tiers", { tiers: tiersText(tiers) });
  }

  now(): number {
    return this.c.now();
  }

  stats(): RollupStats {
    return { pendingChunks: this.pending, lagSeconds: this.pending === 0 ? 0 : (this.c.now() - this.caughtUpAt) / 1000, ...this.counters };
  }

  /** Background work on partitions `parts` for about `budgetMs`. */
  async round(parts: readonly number[], budgetMs = 1000): Promise<void> {
    if (parts.length === 0) return;
    const started = performance.now();
    try {
      for (const p of parts) if (!this.reconciled.has(p)) await this.reconcile(p);
      while (performance.now() - started < budgetMs) {
        if ((await this.batch(parts)) === 0) {
          this.caughtUpAt = this.c.now();
          break;
        }
      }
      const [r] = await this.c.rows<{ n: string }>("SELECT count(*) AS n FROM metric_rollup_queue WHERE part = ANY(?::int[])", [numArray(parts)]);
      this.pending = Number(r?.n ?? 0);
    } finally {
      this.counters.seconds += (performance.now() - started) / 1000;
    }
  }

  /**
   * The partition's tiers as configured: a partition without any gets every stored chunk
   * queued for all tiers (the upgrade); a tier new to it, the chunks queued for that tier; a
   * tier no longer configured, its blocks deleted.
   */
  private async reconcile(part: number): Promise<void> {
    const steps = this.tiers.map((t) => t.step);
    await this.c.tx(async (t) => {
      const stored = (await this.c.rows<{ step: string }>("SELECT step FROM metric_rollup_tiers WHERE part = ? FOR UPDATE", [part], t)).map((r) => Number(r.step));
      const fresh = stored.length === 0;
      for (const step of stored.filter((s) => !steps.includes(s))) {
        await this.c.rows("DELETE FROM metric_rollups r USING metric_series s WHERE s.sid = r.sid AND s.part = ? AND r.step = ?", [part, step], t);
        await this.c.rows("DELETE FROM metric_rollup_tiers WHERE part = ? AND step = ?", [part, step], t);
      }
      for (const step of steps.filter((s) => !stored.includes(s))) {
        if (!fresh) await this.enqueueAll(t, part, step);
        await this.c.rows("INSERT INTO metric_rollup_tiers (part, step) VALUES (?, ?) ON CONFLICT DO NOTHING", [part, step], t);
      }
      if (fresh && steps.length > 0) await this.enqueueAll(t, part, 0);
      if (steps.length === 0) await this.c.rows("DELETE FROM metric_rollup_queue WHERE part = ?", [part], t);
    });
    this.reconciled.add(part);
  }

  private async enqueueAll(t: SQL, part: number, step: number): Promise<void> {
    await this.c.rows(
      "INSERT INTO metric_rollup_queue (part, sid, cid, step) SELECT s.part, c.sid, c.cid, ? FROM metric_chunks c JOIN metric_series s ON s.sid = c.sid WHERE s.part = ? ON CONFLICT DO NOTHING",
      [step, part],
      t,
    );
  }

  /** One transaction: queue entries of a few series rolled up and deleted. Returns how many. */
  private async batch(parts: readonly number[]): Promise<number> {
    if (this.tiers.length === 0) return 0;
    return this.c.tx(async (t) => {
      const rows = await this.c.rows<QueueRow>(
        "SELECT part, sid, cid, step FROM metric_rollup_queue WHERE part = ANY(?::int[]) ORDER BY part, sid, cid LIMIT ? FOR UPDATE SKIP LOCKED",
        [numArray(parts), BATCH],
        t,
      );
      if (rows.length === 0) return 0;
      const bySid = new Map<number, QueueRow[]>();
      for (const r of rows) {
        const l = bySid.get(Number(r.sid));
        if (l) l.push(r);
        else bySid.set(Number(r.sid), [r]);
      }
      const done: QueueRow[] = [];
      for (const [sid, queued] of bySid) {
        const [lock] = await this.c.rows<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock(?, ?) AS ok", [ROLL_LOCK, sid % 2_147_483_647], t);
        if (!lock?.ok) continue;
        await this.rollSeries(t, sid, queued);
        done.push(...queued);
      }
      if (done.length > 0) {
        await this.c.rows(
          "DELETE FROM metric_rollup_queue q USING unnest(?::smallint[], ?::bigint[], ?::bigint[], ?::bigint[]) AS u(part, sid, cid, step) WHERE (q.part, q.sid, q.cid, q.step) = (u.part, u.sid, u.cid, u.step)",
          [numArray(done.map((d) => d.part)), numArray(done.map((d) => Number(d.sid))), numArray(done.map((d) => Number(d.cid))), numArray(done.map((d) => Number(d.step)))],
          t,
        );
      }
      this.counters.chunksRolled += new Set(done.map((d) => d.cid)).size;
      return rows.length;
    });
  }

  /** The queued chunks of one series rolled into its blocks: those for every tier, then those for one tier, finest first. */
  private async rollSeries(t: SQL, sid: number, queued: QueueRow[]): Promise<void> {
    const [series] = await this.c.rows<{ type: MetricType; part: number }>("SELECT type, part FROM metric_series WHERE sid = ?", [sid], t);
    const kind = series && rollupKind(series.type);
    if (kind === undefined) return;
    const batchCids = [...new Set(queued.map((q) => Number(q.cid)))];
    const groups = new Map<number, number[]>();
    for (const q of queued) {
      const step = Number(q.step);
      const l = groups.get(step);
      if (l) l.push(Number(q.cid));
      else groups.set(step, [Number(q.cid)]);
    }
    for (const step of [...groups.keys()].sort((a, b) => a - b)) {
      const updating = step === 0 ? this.tiers.map((_, k) => k) : this.tiers.flatMap((tier, k) => (tier.step === step ? [k] : []));
      if (updating.length === 0) continue;
      const chunks = await this.c.rows<ChunkRow>("SELECT cid, start_ts, end_ts, expires_at, body FROM metric_chunks WHERE sid = ? AND cid = ANY(?::bigint[]) ORDER BY cid", [sid, numArray(groups.get(step)!)], t);
      const now = this.c.now();
      const points = this.merged(sid, chunks.filter((ch) => Number(ch.expires_at) > now));
      if (points.ts.length === 0) continue;
      const roll = new SeriesRoll(kind, this.tiers, updating, { ts: points.ts, vals: points.nums! }, now);
      const refs = roll.blocksNeeded();
      const stored = await this.c.rows<{ step: string; block_start: string; body: Uint8Array }>(
        "SELECT r.step, r.block_start, r.body FROM metric_rollups r JOIN unnest(?::bigint[], ?::bigint[]) AS u(step, block_start) ON r.sid = ? AND r.step = u.step AND r.block_start = u.block_start",
        [numArray(refs.map((r) => this.tiers[r.tier]!.step)), numArray(refs.map((r) => r.start)), sid],
        t,
      );
      const byKey = new Map(stored.map((r) => [`${r.step}:${r.block_start}`, r.body]));
      for (const ref of refs) {
        const st = this.tiers[ref.tier]!.step;
        const body = byKey.get(`${st}:${ref.start}`);
        roll.loaded(ref, body ? decodeRows(body, ref.start, st) : undefined);
      }
      const raw: RawSpan[] = [];
      for (const [lo, hi] of roll.planRaw()) raw.push(await this.rawSpan(t, sid, series!.part, lo, hi, batchCids));
      for (const ch of roll.compute(raw)) {
        const tier = this.tiers[ch.tier]!;
        if (ch.rows.n === 0) await this.c.rows("DELETE FROM metric_rollups WHERE sid = ? AND step = ? AND block_start = ?", [sid, tier.step, ch.start], t);
        else {
          await this.c.rows(
            "INSERT INTO metric_rollups (sid, step, block_start, written, body) VALUES (?, ?, ?, ?, ?) ON CONFLICT (sid, step, block_start) DO UPDATE SET written = excluded.written, body = excluded.body",
            [sid, tier.step, ch.start, now, encodeRows(ch.rows, ch.start, tier.step)],
            t,
          );
        }
        this.counters.blocksWritten++;
      }
    }
  }

  /** Raw points of [lo, hi): the chunks rolled up before (not queued) and those of the batch. */
  private async rawSpan(t: SQL, sid: number, part: number, lo: number, hi: number, batch: number[]): Promise<RawSpan> {
    const rows = await this.c.rows<ChunkRow>(
      `SELECT c.cid, c.start_ts, c.end_ts, c.expires_at, c.body FROM metric_chunks c
       WHERE c.sid = ? AND c.start_ts >= ? AND c.start_ts < ? AND c.end_ts >= ? AND c.expires_at > ?
         AND (c.cid = ANY(?::bigint[]) OR NOT EXISTS (SELECT 1 FROM metric_rollup_queue q WHERE q.part = ? AND q.sid = c.sid AND q.cid = c.cid))
       ORDER BY c.cid`,
      [sid, lo - DAY_MS, hi, lo, this.c.now(), numArray(batch), part],
      t,
    );
    const run = this.merged(sid, rows, lo, hi);
    return { lo, hi, ts: run.ts, vals: run.nums!, chunks: rows.map((r) => ({ start: r.start_ts, end: r.end_ts, expires: Number(r.expires_at) })) };
  }

  /**
   * The chunks' points in [lo, hi), in cid order, the later chunk winning a timestamp. A chunk
   * that does not decode is logged once and left out (its reads fail until it is restored).
   */
  private merged(sid: number, chunks: readonly ChunkRow[], lo = Number.NEGATIVE_INFINITY, hi = Number.POSITIVE_INFINITY): Run {
    const runs: Run[] = [];
    for (const ch of chunks) {
      try {
        const d = decodePoints(ch.body);
        runs.push(sliceRun({ ts: d.ts, nums: d.nums }, lo, hi));
      } catch (e) {
        const key = `chunk ${ch.cid}`;
        if (!this.c.corruptChunks.has(key)) {
          this.c.corruptChunks.add(key);
          this.c.log?.error("corrupt chunk in PostgreSQL: its points are left out of the rollup tiers", { sid, chunk: Number(ch.cid), err: String(e) });
        }
      }
    }
    return mergeRuns(runs, true);
  }

  /** Deletes the blocks of partitions `parts` whose tier's retention has passed since they were last written. */
  async retention(parts: readonly number[]): Promise<void> {
    if (parts.length === 0) return;
    const now = this.c.now();
    for (const tier of this.tiers) {
      await this.c.rows("DELETE FROM metric_rollups r USING metric_series s WHERE r.step = ? AND r.written <= ? AND s.sid = r.sid AND s.part = ANY(?::int[])", [tier.step, now - tier.retention, numArray(parts)]);
    }
  }

  // ---- reads ------------------------------------------------------------------------------

  async series(tenant: string, refs: readonly { type: MetricType; id: string }[]): Promise<(RollupSeriesInfo | undefined)[]> {
    if (refs.length === 0) return [];
    const rows = await this.c.rows<{ o: string; sid: string; type: MetricType; lo: number | null; hi: number | null }>(
      `WITH u AS (SELECT * FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS u(type, metric, o)),
            s AS (SELECT u.o, s.sid, s.part, s.type FROM u JOIN metric_series s ON s.tenant = ? AND s.type = u.type AND s.metric = u.metric)
       SELECT s.o, s.sid, s.type, NULL::float8 AS lo, NULL::float8 AS hi FROM s
       UNION ALL SELECT s.o, s.sid, s.type, b.start_ts, b.end_ts FROM s JOIN metric_blocks b ON b.part = s.part AND b.sid = s.sid
       UNION ALL SELECT s.o, s.sid, s.type, c.start_ts, c.end_ts FROM s JOIN metric_rollup_queue q ON q.part = s.part AND q.sid = s.sid JOIN metric_chunks c ON c.sid = q.sid AND c.cid = q.cid`,
      [textArray(refs.map((r) => r.type)), textArray(refs.map((r) => r.id)), tenant],
    );
    const out: (RollupSeriesInfo | undefined)[] = refs.map(() => undefined);
    for (const r of rows) {
      const i = Number(r.o) - 1;
      const kind = rollupKind(r.type) as RollupKind | undefined;
      if (kind === undefined) continue;
      const info = (out[i] ??= { handle: Number(r.sid), kind, pending: [] });
      if (r.lo !== null && r.hi !== null) info.pending.push(r.lo, r.hi + 1);
    }
    return out;
  }

  async blocks(requests: readonly BlockRequest[]): Promise<(Rows | undefined)[]> {
    if (requests.length === 0) return [];
    const rows = await this.c.rows<{ o: string; body: Uint8Array }>(
      `SELECT u.o, r.body FROM unnest(?::bigint[], ?::bigint[], ?::bigint[]) WITH ORDINALITY AS u(sid, step, block_start, o)
       JOIN metric_rollups r ON r.sid = u.sid AND r.step = u.step AND r.block_start = u.block_start`,
      [numArray(requests.map((r) => r.handle)), numArray(requests.map((r) => r.step)), numArray(requests.map((r) => r.start))],
    );
    const out: (Rows | undefined)[] = requests.map(() => undefined);
    for (const r of rows) {
      const i = Number(r.o) - 1;
      const q = requests[i]!;
      out[i] = decodeRows(r.body, q.start, q.step);
      this.counters.blocksRead++;
      this.counters.bytesRead += r.body.length;
    }
    return out;
  }
}

