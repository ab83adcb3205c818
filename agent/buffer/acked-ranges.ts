import type { Database } from "bun:sqlite";
import { getMeta, setMeta } from "./schema.ts";
import type { Span } from "./span-removal.ts";

/** Above every chunk id. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/**
 * Which rows of `chunks` the collector has acknowledged (the local window, history-window.ts):
 * id ranges in the table `acked`, disjoint, also held here in order. A row whose id lies in a
 * range is the window's; every other row is the backlog's. Acknowledging a span is then one
 * small row written, not its rows' bodies copied into another table (docs/inputs.md,
 * "Measured"). Ids are never reused and new rows take ids above every range, so a range only
 * ever covers rows acknowledged when it was written, or merged rows compaction made of them.
 *
 * Two neighbouring ranges with no row between them are one: the window is usually a single
 * range below the backlog, and the backlog's queries read the ids between ranges (`gaps`).
 */
export class AckedRanges {
  private list: Span[] = [];
  private readonly q;

  constructor(private readonly db: Database) {
    this.q = {
      all: db.query<{ lo: number; hi: number }, []>("SELECT lo, hi FROM acked ORDER BY lo"),
      insert: db.query<null, [number, number]>("INSERT INTO acked (lo, hi) VALUES (?, ?)"),
      remove: db.query<null, [number]>("DELETE FROM acked WHERE lo = ?"),
      anyRow: db.query<{ id: number }, [number, number]>("SELECT id FROM chunks WHERE id BETWEEN ? AND ? LIMIT 1"),
    };
    this.reload();
  }

  /**
   * Opens the ranges of session `session` (buffer-identity.ts). They are trusted only when the
   * session before was this code's: an older agent that opened the buffer in between took every
   * row of `chunks` for backlog (and may have merged rows across ranges), so they are dropped and
   * what is left is forwarded again (the collector keeps one point per series and time). Rows an
   * agent of schema 2 kept in `kept` are folded back into `chunks` as acknowledged rows: this is
   * also the migration of a version-2 buffer. If that copy cannot commit (a full disk), the kept
   * rows are deleted: they are history only, already at the collector. Runs in the transaction
   * that counts the session (buffer-identity.ts).
   */
  open(session: number): void {
    const trusted = getMeta(this.db, "acked_session") === String(session - 1);
    const fold = () => {
      if (!trusted) this.db.exec("DELETE FROM acked");
      const kept = this.db.query<{ id: number }, []>("SELECT id FROM kept ORDER BY id").all();
      this.reload();
      // Ranges first, while `chunks` holds only the backlog: kept rows with no backlog row between them make one range.
      for (const { id } of kept) this.add(id, id);
      this.db.exec("INSERT OR IGNORE INTO chunks (id, enq, fmt, n, bytes, body) SELECT id, enq, fmt, n, bytes, body FROM kept");
      this.db.exec("DELETE FROM kept");
      setMeta(this.db, "acked_session", String(session));
    };
    try {
      this.db.transaction(fold)();
    } catch {
      this.reload();
      this.db.transaction(() => {
        this.db.exec("DELETE FROM kept");
        if (!trusted) this.db.exec("DELETE FROM acked");
        setMeta(this.db, "acked_session", String(session));
      })();
    }
    this.reload();
  }

  /** The ranges, in order. */
  get spans(): readonly Span[] {
    return this.list;
  }

  get size(): number {
    return this.list.length;
  }

  has(id: number): boolean {
    const i = this.indexAtOrBefore(id);
    return i >= 0 && this.list[i]![1] >= id;
  }

  /** The backlog's id intervals within [lo, hi], in order: the ids no range covers. */
  gaps(lo: number, hi: number): Span[] {
    const out: Span[] = [];
    let from = lo;
    for (let i = Math.max(0, this.indexAtOrBefore(lo)); i < this.list.length && from <= hi; i++) {
      const [a, b] = this.list[i]!;
      if (b < from) continue;
      if (a > hi) break;
      if (a > from) out.push([from, a - 1]);
      from = b + 1;
    }
    if (from <= hi) out.push([from, hi]);
    return out;
  }

  /**
   * Records [lo, hi] as acknowledged (inside the caller's transaction), merged with the ranges it
   * overlaps and with neighbours no row separates it from.
   */
  add(lo: number, hi: number): void {
    let i = this.indexAtOrBefore(lo);
    if (i < 0 || this.list[i]![1] < lo - 1) i++;
    let j = i;
    while (j < this.list.length && this.list[j]![0] <= hi + 1) j++;
    let a = lo;
    let b = hi;
    if (j > i) {
      a = Math.min(a, this.list[i]![0]);
      b = Math.max(b, this.list[j - 1]![1]);
    }
    // Neighbours with only deleted ids between (compaction and drops leave gaps in the ids).
    if (i > 0 && !this.q.anyRow.get(this.list[i - 1]![1] + 1, a - 1)) a = this.list[--i]![0];
    if (j < this.list.length && !this.q.anyRow.get(b + 1, this.list[j]![0] - 1)) b = this.list[j++]![1];
    for (let k = i; k < j; k++) this.q.remove.run(this.list[k]![0]);
    this.q.insert.run(a, b);
    this.list.splice(i, j - i, [a, b]);
  }

  /** Drops the leading ranges that no longer hold a row (the window's oldest rows were deleted). */
  pruneLeading(): void {
    while (this.list.length > 0) {
      const [a, b] = this.list[0]!;
      if (this.q.anyRow.get(a, b)) return;
      this.q.remove.run(a);
      this.list.shift();
    }
  }

  /** The ranges as stored (after a transaction that failed). */
  reload(): void {
    this.list = this.q.all.all().map((r) => [r.lo, r.hi]);
  }

  /** Index of the last range starting at or before `id`, or -1. */
  private indexAtOrBefore(id: number): number {
    let lo = 0;
    let hi = this.list.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.list[mid]![0] <= id) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return at;
  }
}
