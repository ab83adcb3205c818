import type { Database } from "bun:sqlite";
import { runBindingBlob } from "../../src/sqlite/blob-statement.ts";
import { type AckedRanges, MAX_ID } from "./acked-ranges.ts";
import { FreshRows, type KeptMark } from "./fresh-rows.ts";
import { chunkTotals, RowTotals } from "./row-totals.ts";

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
 * The backlog: the rows of `chunks` the collector has not acknowledged (the ids no range of
 * acked-ranges.ts covers), in buffering order, and its totals (points, bytes counted against
 * the limit, rows) kept in step with every statement run here. The send path reads it;
 * appends, acknowledgements, limits and compaction change it (point-buffer.ts and the modules
 * it calls). Each query runs over the id intervals between acknowledged ranges: usually one,
 * above the local window.
 */
export class Backlog {
  private readonly totals: RowTotals;
  private readonly q;
  /** Rows just committed, sent from memory at their first read (fresh-rows.ts). */
  readonly fresh = new FreshRows();

  constructor(
    private readonly db: Database,
    private readonly acked: AckedRanges,
  ) {
    const totals = chunkTotals(db);
    this.totals = new RowTotals(() => {
      const all = totals();
      const window = totals(acked.spans);
      return { points: all.points - window.points, bytes: all.bytes - window.bytes, rows: all.rows - window.rows };
    });
    this.q = {
      insert: db.query<null, [number, number, number, number, Uint8Array]>(INSERT),
      removeSpan: db.query<{ n: number; bytes: number }, [number, number]>("DELETE FROM chunks WHERE id BETWEEN ? AND ? RETURNING n, bytes"),
      oldest: db.query<{ id: number; enq: number; n: number; bytes: number }, [number, number, number]>("SELECT id, enq, n, bytes FROM chunks WHERE id BETWEEN ? AND ? ORDER BY id LIMIT ?"),
      removeOne: db.query<null, [number]>("DELETE FROM chunks WHERE id = ?"),
      bodies: db.query<{ body: Uint8Array; n: number; fmt: number }, [number, number]>("SELECT body, n, fmt FROM chunks WHERE id BETWEEN ? AND ? ORDER BY id"),
      lastBefore: db.query<{ id: number | null }, [number, number, number]>("SELECT max(id) AS id FROM chunks WHERE id BETWEEN ? AND ? AND enq < ?"),
      maxId: db.query<{ id: number | null }, [number, number]>("SELECT max(id) AS id FROM chunks WHERE id BETWEEN ? AND ?"),
    };
  }

  get depth(): { points: number; bytes: number; chunks: number } {
    return { points: this.totals.points, bytes: this.totals.bytes, chunks: this.totals.rows };
  }

  /** Deletes the backlog's rows in [lo, hi] (inside the caller's transaction); returns what each counted (span-removal.ts). */
  readonly removeSpan = (lo: number, hi: number): { n: number; bytes: number }[] => {
    const out: { n: number; bytes: number }[] = [];
    for (const [a, b] of this.acked.gaps(lo, hi)) for (const r of this.q.removeSpan.all(a, b)) out.push(r);
    return out;
  };

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
    this.acked.reload();
    this.totals.reload();
    this.fresh.forget();
  }

  /** The backlog's rows after `afterId` up to `toId`, oldest first, at most `limit`: ids and what the row holds. */
  private first(afterId: number, toId: number, limit: number): { id: number; enq: number; n: number; bytes: number }[] {
    const out: { id: number; enq: number; n: number; bytes: number }[] = [];
    for (const [a, b] of this.acked.gaps(afterId + 1, toId)) {
      for (const r of this.q.oldest.all(a, b, limit - out.length)) out.push(r);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Deletes oldest chunks while `more()` holds (inside a transaction); returns [points, chunks] dropped. */
  dropOldestWhile(more: () => boolean, stopAt?: (enq: number) => boolean): [number, number] {
    let points = 0;
    let chunks = 0;
    while (more()) {
      const rows = this.first(0, MAX_ID, 256);
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
    const heads = this.first(afterId, toId, maxPoints);
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
    const rows = this.acked.gaps(lo, hi).flatMap(([a, b]) => this.q.bodies.all(a, b));
    if (rows.length === 0) return undefined;
    let points = 0;
    for (const r of rows) points += r.n;
    return { lo, hi, points, bodies: rows.map((r) => r.body), formats: rows.map((r) => r.fmt) };
  }

  firstAfter(id: number): { id: number; enq: number } | undefined {
    const r = this.first(id, MAX_ID, 1)[0];
    return r && { id: r.id, enq: r.enq };
  }

  /** The last chunk after `afterId` buffered before `time`, if any. */
  lastBufferedBefore(afterId: number, time: number): number | undefined {
    return this.lastIn(afterId + 1, (a, b) => this.q.lastBefore.get(a, b, time)?.id ?? undefined);
  }

  maxId(): number {
    return this.lastIn(1, (a, b) => this.q.maxId.get(a, b)?.id ?? undefined) ?? 0;
  }

  /** Buffering time of the oldest chunk, or undefined when the backlog is empty. */
  oldestBufferedAt(): number | undefined {
    return this.first(0, MAX_ID, 1)[0]?.enq;
  }

  /** `last` of the newest gap from `from` on that has an answer. */
  private lastIn(from: number, last: (lo: number, hi: number) => number | undefined): number | undefined {
    const gaps = this.acked.gaps(from, MAX_ID);
    for (let i = gaps.length - 1; i >= 0; i--) {
      const id = last(gaps[i]![0], gaps[i]![1]);
      if (id !== undefined) return id;
    }
    return undefined;
  }
}
