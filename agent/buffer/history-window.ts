import type { Database } from "bun:sqlite";
import { RowTotals } from "./row-totals.ts";
import type { Span } from "./span-removal.ts";

/**
 * The local window (docs/storage.md, "The agent's local history"): rows the collector has
 * acknowledged, kept in the table `kept` of the same database for `windowMs` after they were
 * buffered, so that the agent can answer reads of its own recent data while the network is
 * down. An acknowledged span is moved there (same ids, bodies and formats) instead of being
 * deleted; the send path never sees it again. Its bytes count inside the buffer's limit, and
 * the unacknowledged backlog always comes first: the oldest kept rows go before any backlog row.
 */
export class HistoryWindow {
  private readonly totals: RowTotals;
  private readonly q;

  constructor(
    private readonly db: Database,
    readonly windowMs: number,
  ) {
    this.totals = new RowTotals(db, "kept");
    this.q = {
      move: db.query<{ n: number; bytes: number }, [number, number]>("INSERT INTO kept (id, enq, fmt, n, bytes, body) SELECT id, enq, fmt, n, bytes, body FROM chunks WHERE id BETWEEN ? AND ? RETURNING n, bytes"),
      remove: db.query<null, [number, number]>("DELETE FROM chunks WHERE id BETWEEN ? AND ?"),
      oldest: db.query<{ id: number; enq: number; n: number; bytes: number }, [number]>("SELECT id, enq, n, bytes FROM kept ORDER BY id LIMIT ?"),
      removeOne: db.query<null, [number]>("DELETE FROM kept WHERE id = ?"),
    };
  }

  get enabled(): boolean {
    return this.windowMs > 0;
  }

  get depth(): { points: number; bytes: number; rows: number } {
    return { points: this.totals.points, bytes: this.totals.bytes, rows: this.totals.rows };
  }

  /**
   * Moves acknowledged spans from the backlog into the window, in one transaction; returns what
   * left the backlog. Throws when it cannot commit (a full disk): the caller then deletes them.
   */
  move(spans: readonly Span[]): { points: number; bytes: number; chunks: number } {
    const moved = { points: 0, bytes: 0, chunks: 0 };
    this.db.transaction(() => {
      for (const [lo, hi] of spans) {
        for (const r of this.q.move.all(lo, hi)) {
          moved.points += r.n;
          moved.bytes += r.bytes;
          moved.chunks++;
        }
        this.q.remove.run(lo, hi);
      }
    })();
    this.account(moved.points, moved.bytes, moved.chunks);
    return moved;
  }

  /**
   * Deletes the oldest kept rows while `more()` holds or, with `olderThan`, those buffered
   * before it (inside the caller's transaction, or its own). Returns the points deleted.
   */
  dropOldest(more: () => boolean, olderThan?: number): number {
    let points = 0;
    while (more()) {
      const rows = this.q.oldest.all(256);
      if (rows.length === 0) break;
      for (const r of rows) {
        if (!more() || (olderThan !== undefined && r.enq >= olderThan)) return points;
        this.q.removeOne.run(r.id);
        this.account(-r.n, -r.bytes, -1);
        points += r.n;
      }
    }
    return points;
  }

  /**
   * Makes room for writes the disk refused by deleting the oldest kept rows (at least `bytes`
   * of them, and 64 KB): the backlog comes first. False when there was nothing to delete or
   * the delete failed too.
   */
  makeRoom(bytes: number): boolean {
    if (this.totals.rows === 0) return false;
    const start = this.totals.bytes;
    try {
      this.db.transaction(() => this.dropOldest(() => start - this.totals.bytes < Math.max(bytes, 65_536)))();
    } catch {
      this.reload();
      return false;
    }
    return this.totals.bytes < start;
  }

  /** Drops rows buffered longer than the window ago; throws when it cannot commit (the next tick tries again). */
  expire(now: number): number {
    if (this.totals.rows === 0) return 0;
    try {
      return this.db.transaction(() => this.dropOldest(() => true, now - this.windowMs))();
    } catch (e) {
      this.reload();
      throw e;
    }
  }

  /** Compaction changed rows of the window. */
  account(points: number, bytes: number, rows: number): void {
    this.totals.account(points, bytes, rows);
  }

  /** Totals as stored (after a transaction that failed). */
  reload(): void {
    this.totals.reload();
  }
}
