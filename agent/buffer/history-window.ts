import type { Database } from "bun:sqlite";
import type { AckedRanges } from "./acked-ranges.ts";
import { chunkTotals, RowTotals } from "./row-totals.ts";
import type { Span } from "./span-removal.ts";

/**
 * The local window (docs/storage.md, "The agent's local history"): rows the collector has
 * acknowledged, kept in `chunks` for `windowMs` after they were buffered, so that the agent can
 * answer reads of its own recent data while the network is down. Acknowledging a span records
 * its ids as acknowledged (acked-ranges.ts) instead of deleting its rows; bodies stay where they
 * are, and the send path never sees them again. Their bytes count inside the buffer's limit,
 * and the unacknowledged backlog always comes first: the oldest window rows go before any
 * backlog row.
 */
export class HistoryWindow {
  private readonly totals: RowTotals;
  private readonly q;

  constructor(
    private readonly db: Database,
    readonly windowMs: number,
    private readonly acked: AckedRanges,
  ) {
    const totals = chunkTotals(db);
    this.totals = new RowTotals(() => totals(acked.spans));
    this.q = {
      rows: db.query<{ id: number; enq: number; n: number; bytes: number }, [number, number, number]>("SELECT id, enq, n, bytes FROM chunks WHERE id BETWEEN ? AND ? ORDER BY id LIMIT ?"),
      removeOne: db.query<null, [number]>("DELETE FROM chunks WHERE id = ?"),
    };
  }

  get enabled(): boolean {
    return this.windowMs > 0;
  }

  get depth(): { points: number; bytes: number; rows: number } {
    return { points: this.totals.points, bytes: this.totals.bytes, rows: this.totals.rows };
  }

  /**
   * Takes acknowledged spans from the backlog into the window, in one transaction: their ids
   * are recorded, their rows stay; returns what left the backlog. Throws when it cannot commit
   * (a full disk): the caller then deletes them.
   */
  move(spans: readonly Span[]): { points: number; bytes: number; chunks: number } {
    const moved = { points: 0, bytes: 0, chunks: 0 };
    this.db.transaction(() => {
      for (const [lo, hi] of spans) {
        for (const [a, b] of this.acked.gaps(lo, hi)) {
          for (const r of this.q.rows.all(a, b, -1)) {
            moved.points += r.n;
            moved.bytes += r.bytes;
            moved.chunks++;
          }
        }
        this.acked.add(lo, hi);
      }
    })();
    this.account(moved.points, moved.bytes, moved.chunks);
    return moved;
  }

  /**
   * Deletes the oldest window rows while `more()` holds or, with `olderThan`, those buffered
   * before it (inside the caller's transaction, or its own). Returns the points deleted.
   */
  dropOldest(more: () => boolean, olderThan?: number): number {
    const rows = this.totals.rows;
    const points = this.deleteOldest(more, olderThan);
    // Ranges left without rows are dropped: fewer for the backlog's queries to step over.
    if (this.totals.rows < rows) this.acked.pruneLeading();
    return points;
  }

  private deleteOldest(more: () => boolean, olderThan?: number): number {
    let points = 0;
    for (const [lo, hi] of [...this.acked.spans]) {
      for (let after = lo - 1; more(); ) {
        const rows = this.q.rows.all(after + 1, hi, 256);
        if (rows.length === 0) break;
        for (const r of rows) {
          if (!more() || (olderThan !== undefined && r.enq >= olderThan)) return points;
          this.q.removeOne.run(r.id);
          this.account(-r.n, -r.bytes, -1);
          points += r.n;
          after = r.id;
        }
      }
      if (!more()) break;
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
    this.acked.reload();
    this.totals.reload();
  }
}
