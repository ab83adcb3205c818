import type { Statement } from "bun:sqlite";
import type { MetricType } from "../../../../src/metrics/model.ts";
import { decodeRows, encodeRows } from "../../../../src/metrics/rollup/block.ts";
import { type BlockChange, deriveBlocks, SeriesRoll } from "../../../../src/metrics/rollup/roll.ts";
import type { Rows } from "../../../../src/metrics/rollup/rows.ts";
import { type RollupTier, tiersText } from "../../../../src/metrics/rollup/tiers.ts";
import { type BlockRequest, type RollupReads, type RollupSeriesInfo, type RollupStats, rollupKind } from "../rollup-types.ts";
import { RollupBlockCache } from "../rollup-cache.ts";
import { chunkPoints, rawSpan } from "./rollup-chunks.ts";
import type { SeriesMeta, StoreState } from "./state.ts";

/** Chunks one roller transaction takes at most, and their points. */
const BATCH_CHUNKS = 1024;
const BATCH_POINTS = 1_000_000;
/** Blocks of a tier no longer configured deleted per round. */
const DROP_ROWS = 20_000;

interface BatchChunk {
  cid: number;
  sid: number;
}

/**
 * The rollup tiers of the SQLite metrics store (docs/storage.md, "Rollup tiers"): the roller,
 * run by the store's background task after each flush, and the reads of queries.
 *
 * Each tier's progress is the id of the last chunk it holds (`rollup_progress`; chunk ids grow
 * with every seal and a single connection writes them, so "every chunk up to the mark" is
 * exact). A round takes the chunks after the lowest mark in id order, in batches; one batch is
 * one transaction: the blocks it changes and the marks it moves commit together, so a crash
 * repeats a whole batch or none of it. A tier added to the configuration is computed from the
 * chunks still stored (the finest tier) or from the finer tier's blocks (a coarser one); a tier
 * taken out has its blocks deleted.
 */
export class SqliteRollups implements RollupReads {
  /** Marks per configured tier; undefined while the tier is being derived from its finer one. */
  private readonly marks: (number | undefined)[];
  /** Steps whose blocks are to be deleted (tiers no longer configured). */
  private readonly dropping: number[] = [];
  /** Series still to derive, per tier index being derived (all series of the finer tier at the start). */
  private readonly deriving = new Map<number, number[]>();
  private readonly st: Record<string, Statement>;
  private readonly cache: RollupBlockCache;
  private caughtUpAt: number;
  private readonly counters = { chunksRolled: 0, blocksWritten: 0, seconds: 0, blocksRead: 0, bytesRead: 0 };
  private lastProgressLog = 0;

  constructor(
    private readonly s: StoreState,
    private readonly configured: readonly RollupTier[],
    cacheBytes = 16 * 1024 * 1024,
  ) {
    const q = (sql: string) => s.db.prepare(sql);
    this.st = {
      block: q("SELECT body FROM rollups WHERE sid = ? AND step = ? AND block_start = ?"),
      upsert: q(
        "INSERT INTO rollups (sid, step, block_start, written, body) VALUES (?, ?, ?, ?, ?) ON CONFLICT (sid, step, block_start) DO UPDATE SET written = excluded.written, body = excluded.body",
      ),
      remove: q("DELETE FROM rollups WHERE sid = ? AND step = ? AND block_start = ?"),
      setMark: q("INSERT INTO rollup_progress (step, mark) VALUES (?, ?) ON CONFLICT (step) DO UPDATE SET mark = excluded.mark"),
      batch: q("SELECT cid, sid, n, coalesce(expires_at, 0) FROM chunks WHERE cid > ? AND cid <= ? ORDER BY cid LIMIT ?"),
      pendingChunks: q("SELECT count(*) AS c FROM chunks WHERE cid > ?"),
      unrolled: q("SELECT sid, start_ts, end_ts FROM chunks WHERE cid > ?"),
      seriesBlocks: q("SELECT block_start, body FROM rollups WHERE sid = ? AND step = ? ORDER BY block_start"),
    };
    this.cache = new RollupBlockCache(cacheBytes);
    this.caughtUpAt = s.now();
    this.marks = configured.map(() => 0);
    this.init();
  }

  /** Compares the configured tiers with those stored: new ones are computed, dropped ones deleted. */
  private init(): void {
    const stored = new Map((this.s.db.query("SELECT step, mark FROM rollup_progress").all() as { step: number; mark: number }[]).map((r) => [r.step, r.mark]));
    const configured = new Set(this.configured.map((t) => t.step));
    for (const step of stored.keys()) if (!configured.has(step)) this.dropping.push(step);
    this.configured.forEach((t, k) => {
      const mark = stored.get(t.step);
      if (mark !== undefined) this.marks[k] = mark;
      else if (k > 0 && stored.has(this.configured[k - 1]!.step)) {
        this.marks[k] = undefined;
        this.deriving.set(k, (this.s.db.query("SELECT DISTINCT sid FROM rollups WHERE step = ? ORDER BY sid").values(this.configured[k - 1]!.step) as [number][]).map((r) => r[0]));
      } else this.marks[k] = 0;
    });
    const log = this.s.opts.log;
    if (this.configured.length > 0) log?.info("rollup tiers", { tiers: tiersText(this.configured), pendingChunks: this.pendingChunks() });
    for (const k of this.deriving.keys()) log?.info("rollup tier added: computing it from the finer tier", { tier: this.configured[k]!.name, from: this.configured[k - 1]!.name });
    for (const step of this.dropping) log?.info("rollup tier no longer configured: deleting its blocks", { step });
  }

  now(): number {
    return this.s.now();
  }

  /** The lowest mark of the tiers that queries read (deriving ones are not read). */
  private readMark(): number {
    let m = Number.POSITIVE_INFINITY;
    for (const x of this.marks) if (x !== undefined && x < m) m = x;
    return Number.isFinite(m) ? m : 0;
  }

  private pendingChunks(): number {
    return this.configured.length === 0 ? 0 : (this.st.pendingChunks!.get(this.readMark()) as { c: number }).c;
  }

  stats(): RollupStats {
    const pending = this.pendingChunks();
    if (pending === 0) this.caughtUpAt = this.s.now();
    return { pendingChunks: pending, lagSeconds: pending === 0 ? 0 : (this.s.now() - this.caughtUpAt) / 1000, ...this.counters };
  }

  /** Background work for about `budgetMs`: dropped tiers, derived tiers, then batches of chunks. */
  round(budgetMs = 200): void {
    if (this.configured.length === 0 && this.dropping.length === 0) return;
    const started = performance.now();
    try {
      this.drop();
      // At least one batch, then more while the budget lasts.
      do {
        if (this.deriving.size > 0) this.deriveSome();
        else if (!this.batch()) {
          this.caughtUpAt = this.s.now();
          break;
        }
      } while (performance.now() - started < budgetMs);
    } finally {
      this.counters.seconds += (performance.now() - started) / 1000;
    }
    this.logProgress();
  }

  private logProgress(): void {
    const now = this.s.now();
    if (now - this.lastProgressLog < 30_000) return;
    const pending = this.pendingChunks();
    if (pending > BATCH_CHUNKS) {
      this.lastProgressLog = now;
      this.s.opts.log?.info("computing rollup tiers", { pendingChunks: pending, rolledChunks: this.counters.chunksRolled });
    }
  }

  private drop(): void {
    while (this.dropping.length > 0) {
      const step = this.dropping[0]!;
      const gone = this.s.writing(() => this.s.db.query("DELETE FROM rollups WHERE rowid IN (SELECT rowid FROM rollups WHERE step = ? LIMIT ?)").run(step, DROP_ROWS).changes);
      this.cache.clear();
      if (gone === DROP_ROWS) return;
      this.s.writing(() => this.s.db.query("DELETE FROM rollup_progress WHERE step = ?").run(step));
      this.dropping.shift();
    }
  }

  /** Derives a coarser tier for some series from the finer tier's blocks; the last one gives it the finer mark. */
  private deriveSome(): void {
    const [k, sids] = this.deriving.entries().next().value!;
    const finer = this.configured[k - 1]!;
    const coarse = this.configured[k]!;
    const take = sids.splice(0, 8);
    this.s.writing(() =>
      this.s.db.transaction(() => {
        for (const sid of take) {
          const m = this.s.bySid.get(sid);
          const kind = m && rollupKind(m.type);
          if (kind === undefined) continue;
          const blocks = (this.st.seriesBlocks!.all(sid, finer.step) as { block_start: number; body: Uint8Array }[]).map((r) => ({ start: r.block_start, rows: decodeRows(r.body, r.block_start, finer.step) }));
          for (const b of deriveBlocks(kind, finer, coarse, blocks)) this.write(sid, coarse, b.start, b.rows);
        }
        if (sids.length === 0) this.st.setMark!.run(coarse.step, this.marks[k - 1]!);
      })(),
    );
    if (sids.length === 0) {
      this.deriving.delete(k);
      this.marks[k] = this.marks[k - 1];
      this.s.opts.log?.info("rollup tier computed from the finer tier", { tier: coarse.name });
    }
  }

  private write(sid: number, t: RollupTier, start: number, rows: Rows): void {
    this.cache.delete(sid, t.step, start);
    if (rows.n === 0) this.st.remove!.run(sid, t.step, start);
    else this.st.upsert!.run(sid, t.step, start, this.s.now(), encodeRows(rows, start, t.step));
    this.counters.blocksWritten++;
  }

  /**
   * One batch: the chunks after the lowest mark, up to the next tier's mark (tiers at the same
   * mark move together), in one transaction. False when every tier holds every chunk.
   */
  private batch(): boolean {
    const low = Math.min(...(this.marks as number[]));
    const updating = this.configured.map((_, k) => k).filter((k) => this.marks[k] === low);
    const above = (this.marks as number[]).filter((m) => m > low);
    const ceiling = above.length > 0 ? Math.min(...above) : Number.MAX_SAFE_INTEGER;
    const rows = this.st.batch!.values(low, ceiling, this.s.opts.rollupBatchChunks ?? BATCH_CHUNKS) as [number, number, number, number][];
    if (rows.length === 0) {
      if (ceiling === Number.MAX_SAFE_INTEGER) return false;
      // Nothing between this mark and the next: the lower tiers catch up at once.
      this.s.writing(() => this.s.db.transaction(() => this.setMarks(updating, ceiling))());
      return true;
    }
    const now = this.s.now();
    const chunks: BatchChunk[] = [];
    let points = 0;
    let end = low;
    for (const [cid, sid, n, expires] of rows) {
      if (chunks.length > 0 && points + n > BATCH_POINTS) break;
      end = cid;
      // Expired (chunks of version 1 expire by time, checked on reading): not worth a rollup.
      if (expires !== 0 && expires <= now) continue;
      points += n;
      chunks.push({ cid, sid });
    }
    const bySid = new Map<number, number[]>();
    for (const c of chunks) {
      const l = bySid.get(c.sid);
      if (l) l.push(c.cid);
      else bySid.set(c.sid, [c.cid]);
    }
    this.s.writing(() =>
      this.s.db.transaction(() => {
        for (const [sid, cids] of bySid) {
          const m = this.s.bySid.get(sid);
          const kind = m && rollupKind(m.type);
          if (!m || kind === undefined) continue;
          for (const ch of this.rollSeries(m, kind, cids, updating, end)) {
            this.write(sid, this.configured[ch.tier]!, ch.start, ch.rows);
          }
        }
        this.setMarks(updating, end);
      })(),
    );
    this.counters.chunksRolled += chunks.length;
    return true;
  }

  private setMarks(updating: number[], mark: number): void {
    for (const k of updating) {
      this.st.setMark!.run(this.configured[k]!.step, mark);
      this.marks[k] = mark;
    }
  }

  private rollSeries(m: SeriesMeta, kind: number, cids: number[], updating: number[], upTo: number): BlockChange[] {
    const points = chunkPoints(this.s, m, cids);
    if (points.ts.length === 0) return [];
    const roll = new SeriesRoll(kind as 0 | 1 | 2, this.configured, updating, { ts: points.ts, vals: points.nums! }, this.s.now());
    for (const ref of roll.blocksNeeded()) {
      const step = this.configured[ref.tier]!.step;
      const row = this.st.block!.get(m.sid, step, ref.start) as { body: Uint8Array } | null;
      roll.loaded(ref, row ? decodeRows(row.body, ref.start, step) : undefined);
    }
    const batch = { cids: new Set(cids), points };
    const raw = roll.planRaw().map(([lo, hi]) => rawSpan(this.s, m, lo, hi, upTo, batch));
    return roll.compute(raw);
  }

  /** Deletes the blocks whose tier's retention has passed since they were last written. */
  retention(): void {
    const now = this.s.now();
    let gone = 0;
    this.s.writing(() => {
      for (const t of this.configured) gone += this.s.db.query("DELETE FROM rollups WHERE step = ? AND written <= ?").run(t.step, now - t.retention).changes;
    });
    if (gone > 0) {
      this.cache.clear();
      this.s.opts.log?.info("retention removed expired rollup blocks", { blocks: gone });
    }
  }

  // ---- reads ------------------------------------------------------------------------------

  /** The tiers queries read: all but those being derived. */
  get tiers(): readonly RollupTier[] {
    return this.deriving.size === 0 ? this.configured : this.configured.filter((_, k) => this.marks[k] !== undefined);
  }

  async series(tenant: string, refs: readonly { type: MetricType; id: string }[]): Promise<(RollupSeriesInfo | undefined)[]> {
    const unrolled = new Map<number, number[]>();
    for (const [sid, lo, hi] of this.st.unrolled!.values(this.readMark()) as [number, number, number][]) {
      const l = unrolled.get(sid);
      if (l) l.push(lo, hi + 1);
      else unrolled.set(sid, [lo, hi + 1]);
    }
    const gap = this.configured[0]?.step ?? 0;
    return refs.map((r) => {
      const m = this.s.find(tenant, r.type, r.id);
      const kind = m && rollupKind(m.type);
      if (!m || kind === undefined) return undefined;
      return { handle: m.sid, kind, pending: [...(unrolled.get(m.sid) ?? []), ...headRanges(m, gap)] };
    });
  }

  async blocks(requests: readonly BlockRequest[]): Promise<(Rows | undefined)[]> {
    return requests.map((q) => {
      const step = q.step;
      const got = this.cache.getOrLoad(q.handle, step, q.start, () => {
        const row = this.st.block!.get(q.handle, step, q.start) as { body: Uint8Array } | null;
        return row ? { rows: decodeRows(row.body, q.start, step), stored: row.body.length } : { rows: undefined, stored: 0 };
      });
      if (got.rows) {
        this.counters.blocksRead++;
        this.counters.bytesRead += got.stored;
      }
      return got.rows;
    });
  }
}

/** The head's points as ranges [lo, hi), flat, split where they are more than `gap` apart. */
function headRanges(m: SeriesMeta, gap: number): number[] {
  const h = m.head;
  if (!h || h.length === 0) return [];
  h.normalize();
  const out: number[] = [h.ts[0]!, h.ts[0]! + 1];
  for (let i = 1; i < h.length; i++) {
    const t = h.ts[i]!;
    if (t - out[out.length - 1]! > gap) out.push(t, t + 1);
    else out[out.length - 1] = t + 1;
  }
  return out;
}
