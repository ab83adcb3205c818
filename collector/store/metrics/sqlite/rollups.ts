import type { Statement } from "bun:sqlite";
import type { MetricType } from "../../../../src/metrics/model.ts";
import { encodeRows } from "../../../../src/metrics/rollup/block.ts";
import { storedBody } from "../../../../src/metrics/rollup/block-segments.ts";
import type { Rows } from "../../../../src/metrics/rollup/rows.ts";
import { RollScratch } from "../../../../src/metrics/rollup/rows-builder.ts";
import { type RollupTier, tiersText } from "../../../../src/metrics/rollup/tiers.ts";
import { type BlockRequest, type RollupReads, type RollupSeriesInfo, type RollupStats, rollupKind } from "../../../../src/metrics/rollup/reads.ts";
import { ByteWriter } from "../../../../src/codec/bytes.ts";
import { RollupBlockCache } from "../rollup-cache.ts";
import { RollupDriver } from "./rollup-driver.ts";
import { UnrolledChunks } from "./rollup-unrolled.ts";
import { readBlocks, rolledSeries } from "./rollup-reads.ts";
import { TierChanges } from "./rollup-tier-changes.ts";
import type { RemoteSteps, RemoteWindow, RollupCompute } from "./rollup-remote.ts";
import { computeSeriesStep, type StepRequest, type StoredChange } from "./rollup-series.ts";
import { ChunkSource } from "./rollup-source.ts";
import { WindowStarts } from "./rollup-window-starts.ts";
import { WindowTiming } from "./rollup-window-timing.ts";
import { prepareRollupStatements, storedMarks } from "./rollup-statements.ts";
import type { StoreState } from "./state.ts";

/** How long a count of the chunks pending is reused (pendingChunks). */
const RECOUNT_MS = 10_000;

/** The chunks being rolled up: (low, high] of the tiers `updating`, series by series. */
interface Window extends RemoteWindow {
  low: number;
  high: number;
  updating: number[];
  /** Series with chunks left in the window, ascending; the first is being rolled up. */
  todo: number[];
  /** Each series' earliest chunk start in the window (where its steps read from). */
  starts: WindowStarts;
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
  /** Tiers taken out or added since the last start (rollup-tier-changes.ts). */
  private readonly changes: TierChanges;
  private readonly st: Record<string, Statement>;
  private readonly cache: RollupBlockCache;
  private caughtUpAt: number;
  private window: Window | undefined;
  /** When the next window opens (rollup-window-timing.ts). */
  private readonly timing: WindowTiming;
  /** The last count of pending chunks (pendingChunks). */
  private pendingCount: { mark: number; at: number; n: number } | undefined;
  /** Chunks not rolled up yet, per series (rollup-unrolled.ts). */
  private readonly unrolled: UnrolledChunks;
  private readonly counters = { chunksRolled: 0, blocksWritten: 0, seconds: 0, blocksRead: 0, bytesRead: 0 };
  private lastProgressLog = 0;
  /** The roller's memory, reused series after series: reset as a step starts, its blocks written before the next. */
  private readonly scratch = new RollScratch();
  private readonly encoder = new ByteWriter(64 * 1024);
  /** The chunks and blocks as this thread's steps read them. */
  private readonly source: ChunkSource;
  /** Changes when this thread takes the window's steps itself (round): an answer of the roller's thread computed before is dropped. */
  generation = 0;
  /** When, and in which thread, the steps run (rollup-driver.ts). */
  private readonly driver: RollupDriver;

  constructor(
    private readonly s: StoreState,
    private readonly configured: readonly RollupTier[],
    cacheBytes = 16 * 1024 * 1024,
    /** Computes steps in another thread while ingest and queries have this one (absent: here, in slices). */
    remote?: RollupCompute,
  ) {
    this.driver = new RollupDriver(this, s, remote);
    this.timing = new WindowTiming(s.now(), s.appended);
    this.st = prepareRollupStatements(s.db);
    this.unrolled = new UnrolledChunks(this.st.unrolled!);
    this.source = new ChunkSource(s.db, {
      cached: (cid) => s.cache.get(cid),
      now: () => s.now(),
      corrupt: (sid, cid, why) => this.corrupt(sid, cid, why),
    });
    this.cache = new RollupBlockCache(cacheBytes);
    this.caughtUpAt = s.now();
    this.marks = configured.map(() => 0);
    this.changes = new TierChanges(s, configured, this.st, this.marks);
    this.init();
    this.loadUnrolled();
  }

  private loadUnrolled(): void {
    this.unrolled.load(this.readMark());
  }

  /** Chunks a flush committed (sid, cid, start, end, expiry, five numbers each; `points` in all): pending until rolled up. */
  sealed(added: readonly number[], points: number): void {
    if (this.configured.length === 0) return;
    this.unrolled.sealed(added);
    this.timing.sealed(points);
    if (this.pendingCount) this.pendingCount.n += added.length / 5;
  }

  /** Compares the configured tiers with those stored: new ones are computed, dropped ones deleted. */
  private init(): void {
    this.changes.compare(storedMarks(this.s.db));
    if (this.configured.length > 0) this.s.opts.log?.info("rollup tiers", { tiers: tiersText(this.configured), pendingChunks: this.pendingChunks() });
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

  /**
   * Sealed chunks not in every tier read. Counting scans them (tens of milliseconds with 100,000
   * pending; windows ten minutes apart leave several times that), and each of the rollup
   * self-metrics asked on its own at every scrape: while the marks do not move, a count is
   * reused for up to RECOUNT_MS with the chunks sealed since added (a series deleted meanwhile
   * is counted again at the next count).
   */
  private pendingChunks(): number {
    if (this.configured.length === 0) return 0;
    const mark = this.readMark();
    const at = performance.now();
    const last = this.pendingCount;
    if (last && last.mark === mark && at - last.at < RECOUNT_MS) return last.n;
    const n = (this.st.pendingChunks!.get(mark) as { c: number }).c;
    this.pendingCount = { mark, at, n };
    return n;
  }

  stats(): RollupStats {
    const pending = this.pendingChunks();
    if (pending === 0) this.caughtUpAt = this.s.now();
    return { pendingChunks: pending, lagSeconds: pending === 0 ? 0 : (this.s.now() - this.caughtUpAt) / 1000, ...this.counters };
  }

  /**
   * Background work for about `budgetMs`: dropped tiers, derived tiers, then the window of
   * chunks to roll up (`force`: open one now, whenever the last one opened).
   */
  round(budgetMs = 200, force = false): boolean {
    if (this.configured.length === 0 && this.changes.dropping.length === 0) return false;
    // An answer of the roller's thread still out is dropped: this round takes its series again.
    this.generation++;
    const started = performance.now();
    let more = true;
    try {
      this.changes.drop(() => this.cache.clear());
      // At least one step, then more while the budget lasts.
      if (this.changes.deriving.size > 0) {
        const write = (sid: number, t: RollupTier, start: number, rows: Rows) => this.write(sid, t, start, rows);
        do this.changes.deriveSome(write);
        while (this.changes.deriving.size > 0 && performance.now() - started < budgetMs);
      } else {
        more = this.inOneTransaction(() => {
          do {
            if (!this.step(force)) {
              // No window and no series with chunks left: caught up (without counting them, every round).
              if (!this.window && this.unrolled.series === 0) this.caughtUpAt = this.s.now();
              return false;
            }
          } while (performance.now() - started < budgetMs);
          return true;
        });
      }
    } finally {
      this.counters.seconds += (performance.now() - started) / 1000;
    }
    this.logProgress();
    return more;
  }

  /**
   * The steps of a round committed together: a step's own transaction becomes a savepoint. One
   * commit per series wrote its pages to the log again for every series (after a restart,
   * 50,000 commits for one window: a tenth of the main thread, issue 28). A crash repeats the
   * round's steps, each as it would have been. When the commit fails, the roller's state in
   * memory (window, marks, chunks pending) is read again from what is stored.
   */
  private inOneTransaction(fn: () => boolean): boolean {
    try {
      return this.s.writing(() => this.s.db.transaction(fn)());
    } catch (e) {
      this.window = undefined;
      const stored = storedMarks(this.s.db);
      this.configured.forEach((t, k) => {
        if (this.marks[k] !== undefined) this.marks[k] = stored.get(t.step) ?? 0;
      });
      this.loadUnrolled();
      throw e;
    }
  }

  /**
   * Logs the progress of a catch-up, looking at most every 30 s. Why not at every call while
   * not behind: counting the chunks pending scans them, and it ran after every answer of the
   * roller's worker (several a second), a tenth of the main thread under sustained ingest
   * (issue 28, docs/storage.md thirteenth part).
   */
  private logProgress(): void {
    const now = this.s.now();
    if (now - this.lastProgressLog < 30_000) return;
    this.lastProgressLog = now;
    const pending = this.pendingChunks();
    if (pending > 1000) this.s.opts.log?.info("computing rollup tiers", { pendingChunks: pending, rolledChunks: this.counters.chunksRolled });
  }

  /** Stores a block's rows: whole, or (`change`: a step's, with the body it was computed from) the rows it changed appended. */
  private write(sid: number, t: RollupTier, start: number, rows: Rows, change?: StoredChange): void {
    // The encoder's bytes are copied by the statement.
    const body = rows.n === 0 ? undefined : change ? storedBody(rows, change.from, change.old, start, t.step, this.encoder) : encodeRows(rows, start, t.step, this.encoder);
    this.writeEncoded(sid, t, start, body);
  }

  /** Stores a block's bytes (undefined: deletes it, no bucket is left). */
  private writeEncoded(sid: number, t: RollupTier, start: number, body: Uint8Array | undefined): void {
    this.cache.delete(sid, t.step, start);
    if (body === undefined) this.st.remove!.run(sid, t.step, start);
    else this.st.upsert!.run(sid, t.step, start, this.s.now(), body);
    this.counters.blocksWritten++;
  }

  /**
   * One step of the span of chunks being rolled up (the window): the chunks after the lowest
   * mark up to the newest chunk when the window opened (or the next tier's mark: tiers at the
   * same mark move together). The window is rolled up series by series, each series' chunks in
   * one go (so a series' blocks are rewritten once per window, however many of its chunks
   * were sealed meanwhile), a step per series (or per 200,000 points of it) writing its blocks
   * and its mark in `rollup_series_marks` (the steps of a round commit together); the last step
   * moves the tiers' marks to the window's end. A crash repeats the round it was in, and no
   * series' chunk twice. A new window
   * opens at most every 30 s while points keep coming in (2 s once they stop): the roller then
   * takes a series' chunks of that time together. False when there is nothing to do now.
   */
  private step(force: boolean): boolean {
    const w = this.currentWindow(force);
    if (!w) return false;
    const next = w.todo[0];
    if (next === undefined) this.closeWindow(w);
    else this.rollSeriesStep(next, w);
    return true;
  }

  /** The open window, or a new one when its period has passed (`force`: now); undefined when there is nothing to do now. */
  private currentWindow(force: boolean): Window | undefined {
    if (!this.window) {
      const now = this.s.now();
      const due = this.timing.due(now, this.s.appended, this.unrolled.series);
      if (!force && !due) return undefined;
      this.window = this.openWindow();
      if (!this.window) return undefined;
      this.timing.opened(now);
    }
    return this.window;
  }

  /** Every series of the window is rolled up: the tiers' marks move to its end. */
  private closeWindow(w: Window): void {
    this.s.writing(() =>
      this.s.db.transaction(() => {
        this.setMarks(w.updating, w.high);
        this.s.db.query("DELETE FROM rollup_series_marks WHERE mark <= ?").run(w.high);
      })(),
    );
    this.window = undefined;
    this.loadUnrolled();
  }

  /** The window from the lowest mark, or undefined when every tier holds every chunk. */
  private openWindow(): Window | undefined {
    for (;;) {
      const low = Math.min(...(this.marks as number[]));
      const updating = this.configured.map((_, k) => k).filter((k) => this.marks[k] === low);
      const above = (this.marks as number[]).filter((m) => m > low);
      const newest = (this.s.db.query("SELECT max(cid) AS m FROM chunks").get() as { m: number | null }).m ?? 0;
      const high = above.length > 0 ? Math.min(...above) : newest;
      if (high <= low) return undefined;
      const rows = this.s.db
        .query(
          "SELECT c.sid, min(c.start_ts) FROM chunks c LEFT JOIN rollup_series_marks m ON m.sid = c.sid WHERE c.cid > ? AND c.cid <= ? AND c.cid > coalesce(m.mark, 0) GROUP BY c.sid ORDER BY c.sid",
        )
        .values(low, high) as [number, number][];
      if (rows.length > 0) return { low, high, updating, todo: rows.map((r) => r[0]), starts: new WindowStarts(rows) };
      // Nothing between this mark and the next: the lower tiers catch up at once.
      this.s.writing(() => this.s.db.transaction(() => this.setMarks(updating, high))());
    }
  }

  /** What the step of series `sid` in the window is to compute. */
  private stepRequest(sid: number, w: Window): StepRequest {
    const m = this.s.bySid.get(sid);
    return {
      sid,
      kind: m && rollupKind(m.type),
      retentionMs: m ? this.s.retentionMs(m) : 0,
      low: w.low,
      high: w.high,
      // Every series of the window has its start; without one, the series' chunks from its first.
      from: w.starts.of(sid) ?? Number.NEGATIVE_INFINITY,
      updating: w.updating,
      batchPoints: this.s.opts.rollupBatchPoints,
    };
  }

  /** The next chunks of the window's first series (up to the batch's points), rolled up with its mark, on this thread. */
  private rollSeriesStep(sid: number, w: Window): void {
    const r = computeSeriesStep(this.source, this.configured, this.scratch, this.stepRequest(sid, w));
    if (r.done) w.todo.shift();
    if (r.end === 0) return;
    const write = () => {
      for (const ch of r.changes) this.write(sid, this.configured[ch.tier]!, ch.start, ch.rows, ch);
    };
    this.s.writing(() => this.s.db.transaction(() => this.writeStep(sid, r.end, write))());
    this.stepDone(sid, r.end, r.chunks);
  }

  /** A step's blocks (`write`) and the series' new mark, in the caller's transaction; a series deleted meanwhile gets only its mark. */
  private writeStep(sid: number, end: number, write: () => void): void {
    if (this.s.bySid.has(sid)) write();
    this.st.setSeriesMark!.run(sid, end);
  }

  private stepDone(sid: number, end: number, chunks: number): void {
    this.unrolled.rolled(sid, end);
    this.counters.chunksRolled += chunks;
  }

  /** The background task's share of the roller, called once a second (rollup-driver.ts). */
  background(): void {
    this.driver.background();
  }

  /**
   * Rolls up every sealed chunk as the background task does (in the roller's thread when the
   * store has one); resolves once the tiers hold them all.
   */
  catchUp(): Promise<void> {
    return this.driver.catchUp();
  }

  /** Whether the window's steps may be computed in another thread now (no tier being derived or dropped). */
  remoteReady(): boolean {
    return this.changes.settled && this.configured.length > 0;
  }

  /**
   * The next steps of the open window, up to `series` of them (windows with nothing left are
   * closed, a new one opened when due; `force`: now); undefined when there is nothing to do now.
   */
  nextRequests(force: boolean, series: number): { window: RemoteWindow; tiers: readonly RollupTier[]; requests: StepRequest[] } | undefined {
    let w = this.currentWindow(force);
    while (w && w.todo.length === 0) {
      this.closeWindow(w);
      w = this.currentWindow(force);
    }
    if (!w) return undefined;
    const window = w;
    return { window, tiers: this.configured, requests: window.todo.slice(0, series).map((sid) => this.stepRequest(sid, window)) };
  }

  /** The roller's thread's answer for the window's first series, written in one transaction. */
  writeRemote(w: RemoteWindow, answer: RemoteSteps): void {
    for (const [sid, cid, why] of answer.corrupt) this.corrupt(sid, cid, why);
    const started = performance.now();
    this.inOneTransaction(() => {
      for (const step of answer.steps) {
        const write = () => {
          for (const b of step.blocks) this.writeEncoded(step.sid, this.configured[b.tier]!, b.start, b.body);
        };
        if (step.end !== 0) this.writeStep(step.sid, step.end, write);
      }
      return true;
    });
    const done = new Set<number>();
    for (const step of answer.steps) {
      if (step.done) done.add(step.sid);
      if (step.end !== 0) this.stepDone(step.sid, step.end, step.chunks);
    }
    // The request asked for the window's first series: those done leave it, the others stay first.
    const head = (w as Window).todo.splice(0, answer.steps.length).filter((sid) => !done.has(sid));
    if (head.length > 0) (w as Window).todo.unshift(...head);
    this.counters.seconds += answer.seconds + (performance.now() - started) / 1000;
    this.logProgress();
  }

  /** A failed round or write: reported to the storage health (a full disk), else logged. */
  failed(e: unknown): void {
    if (this.s.opts.health?.report(e, "metrics") === undefined) this.s.opts.log?.error("rolling up failed", { err: String(e) });
  }

  /** A chunk that does not decode, logged once: its points are left out of the tiers. */
  private corrupt(sid: number, cid: number, why: string): void {
    if (this.s.corruptChunks.has(cid)) return;
    this.s.corruptChunks.add(cid);
    const m = this.s.bySid.get(sid);
    this.s.opts.log?.error("corrupt chunk in metrics.db: its points are left out of the rollup tiers", { tenant: m?.tenant, type: m?.type, metric: m?.id, chunk: cid, err: why });
  }

  private setMarks(updating: number[], mark: number): void {
    for (const k of updating) {
      this.st.setMark!.run(this.configured[k]!.step, mark);
      this.marks[k] = mark;
    }
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
    return this.changes.deriving.size === 0 ? this.configured : this.configured.filter((_, k) => this.marks[k] !== undefined);
  }

  async series(tenant: string, refs: readonly { type: MetricType; id: string }[]): Promise<(RollupSeriesInfo | undefined)[]> {
    return rolledSeries(this.s, this.unrolled, this.configured[0]?.step ?? 0, tenant, refs);
  }

  async blocks(requests: readonly BlockRequest[]): Promise<(Rows | undefined)[]> {
    return readBlocks(this.cache, this.source, this.counters, requests);
  }
}
