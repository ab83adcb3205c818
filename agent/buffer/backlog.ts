import type { Database } from "bun:sqlite";
import { runBindingBlob } from "../../src/sqlite/blob-statement.ts";
import { FreshRows, type KeptMark } from "./fresh-rows.ts";
import { RowTotals } from "./row-totals.ts";

/** Rows count a little more than their body: the ids, times and index entries around it. */
export const ROW_OVERHEAD = 40;

const INSERT = "INSERT INTO chunks (enq, fmt, n, bytes, body) VALUES (?, ?, ?, ?, ?)";

export interface ChunkSpan {
  /** First and last chunk id, inclusive: ids are never reused, so the span names exactly these chunks. */
  lo: number;
  hi: number;
  points: number;
  bodies: Uint8Array[];
  /** Format of each body (CHUNK_FORMAT: CBOR chunk, or series chunk of a compacted row; MARKERS_FLAG added when it holds staleness markers). */
  formats: number[];
}

/**
 * The backlog: the table `chunks` of rows the collector has not acknowledged, in buffering
 * order, and its totals (points, bytes counted against the limit, rows) kept in step with every
 * statement run here. The send path reads it; appends, acknowledgements, limits and compaction
 * change it (point-buffer.ts and the modules it calls).
 */
export class Backlog {
  private readonly totals: RowTotals;
  private readonly q;
  /** Rows just committed, sent from memory at their first read (fresh-rows.ts). */
  readonly fresh = new FreshRows();

  constructor(private readonly db: Database) {
    this.totals = new RowTotals(db, "chunks");
    this.q = {
      insert: db.query<null, [number, number, number, number, Uint8Array]>(INSERT),
      removeSpan: db.query<{ n: number; bytes: number }, [number, number]>("DELETE FROM chunks WHERE id BETWEEN ? AND ? RETURNING n, bytes"),
      oldest: db.query<{ id: number; enq: number; n: number; bytes: number }, [number]>("SELECT id, enq, n, bytes FROM chunks ORDER BY id LIMIT ?"),
      removeOne: db.query<null, [number]>("DELETE FROM chunks WHERE id = ?"),
      heads: db.query<{ id: number; n: number }, [number, number, number]>("SELECT id, n FROM chunks WHERE id > ? AND id <= ? ORDER BY id LIMIT ?"),
      bodies: db.query<{ body: Uint8Array; n: number; fmt: number }, [number, number]>("SELECT body, n, fmt FROM chunks WHERE id BETWEEN ? AND ? ORDER BY id"),
      firstAfter: db.query<{ id: number; enq: number }, [number]>("SELECT id, enq FROM chunks WHERE id > ? ORDER BY id LIMIT 1"),
      lastBefore: db.query<{ id: number | null }, [number, number]>("SELECT max(id) AS id FROM chunks WHERE id > ? AND enq < ?"),
      maxId: db.query<{ id: number | null }, []>("SELECT max(id) AS id FROM chunks"),
      oldestEnq: db.query<{ enq: number }, []>("SELECT enq FROM chunks ORDER BY id LIMIT 1"),
    };
  }

  get depth(): { points: number; bytes: number; chunks: number } {
    return { points: this.totals.points, bytes: this.totals.bytes, chunks: this.totals.rows };
  }

  /** The statement deleting a span of ids and returning what each row counted (span-removal.ts). */
  get removeSpanStatement() {
    return this.q.removeSpan;
  }

  /**
   * Adds one row (inside the caller's transaction); returns the bytes it counts. With `keep`,
   * its body (a buffer of its own the writer gives up) is kept for the first read once committed.
   */
  insert(enq: number, format: number, points: number, body: Uint8Array, keep?: KeptMark): number {
    const bytes = body.byteLength + ROW_OVERHEAD;
    const r = runBindingBlob(this.db, this.q.insert, INSERT, [enq, format, points, bytes, body], body);
    if (keep) this.fresh.inserted(Number(r.lastInsertRowid), { body, n: points, fmt: format }, keep);
    this.account(points, bytes, 1);
    return bytes;
  }

  account(points: number, bytes: number, chunks: number): void {
    this.totals.account(points, bytes, chunks);
  }

  /** Totals as stored (after a transaction that failed); rows are read from SQLite again. */
  reload(): void {
    this.totals.reload();
    this.fresh.forget();
  }

  /** Deletes oldest chunks while `more()` holds (inside a transaction); returns [points, chunks] dropped. */
  dropOldestWhile(more: () => boolean, stopAt?: (enq: number) => boolean): [number, number] {
    let points = 0;
    let chunks = 0;
    while (more()) {
      const rows = this.q.oldest.all(256);
      if (rows.length === 0) break;
      for (const r of rows) {
        if (!more() || stopAt?.(r.enq)) return [points, chunks];
        this.q.removeOne.run(r.id);
        this.account(-r.n, -r.bytes, -1);
        this.fresh.forget();
        points += r.n;
        chunks++;
      }
    }
    return [points, chunks];
  }

  /**
   * The chunks after `afterId` and up to `toId`, as many as fit in `maxPoints` (at least one),
   * or undefined when there are none.
   */
  read(afterId: number, toId: number, maxPoints: number): ChunkSpan | undefined {
    const heads = this.q.heads.all(afterId, toId, maxPoints);
    if (heads.length === 0) return undefined;
    let points = heads[0]!.n;
    let hi = heads[0]!.id;
    let k = 1;
    for (; k < heads.length && points + heads[k]!.n <= maxPoints; k++) {
      points += heads[k]!.n;
      hi = heads[k]!.id;
    }
    // The rows of [lo, hi] are heads[0 .. k-1]: from memory when all were just committed.
    const mem = this.fresh.take(heads.slice(0, k).map((h) => h.id));
    if (mem) return { lo: heads[0]!.id, hi, points, bodies: mem.map((r) => r.body), formats: mem.map((r) => r.fmt) };
    return this.span(heads[0]!.id, hi);
  }

  /** The chunks still buffered in [lo, hi] (some may have been dropped), or undefined when none are left. */
  span(lo: number, hi: number): ChunkSpan | undefined {
    const rows = this.q.bodies.all(lo, hi);
    if (rows.length === 0) return undefined;
    let points = 0;
    for (const r of rows) points += r.n;
    return { lo, hi, points, bodies: rows.map((r) => r.body), formats: rows.map((r) => r.fmt) };
  }

  firstAfter(id: number): { id: number; enq: number } | undefined {
    return this.q.firstAfter.get(id) ?? undefined;
  }

  /** The last chunk after `afterId` buffered before `time`, if any. */
  lastBufferedBefore(afterId: number, time: number): number | undefined {
    return this.q.lastBefore.get(afterId, time)?.id ?? undefined;
  }

  maxId(): number {
    return this.q.maxId.get()?.id ?? 0;
  }

  /** Buffering time of the oldest chunk, or undefined when the backlog is empty. */
  oldestBufferedAt(): number | undefined {
    return this.q.oldestEnq.get()?.enq;
  }
}
