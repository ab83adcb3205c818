import type { Database } from "bun:sqlite";
import type { Span } from "./span-removal.ts";

export interface Totals {
  points: number;
  bytes: number;
  rows: number;
}

/**
 * What a part of the buffer's rows holds (the backlog, or the local window: acked-ranges.ts):
 * points, bytes counted against the buffer's limit, and rows, kept in step with each statement
 * that changes it, and read again from the table after a transaction that failed.
 */
export class RowTotals implements Totals {
  points = 0;
  bytes = 0;
  rows = 0;

  constructor(private readonly read: () => Totals) {
    this.reload();
  }

  account(points: number, bytes: number, rows: number): void {
    this.points += points;
    this.bytes += bytes;
    this.rows += rows;
  }

  /** Totals as stored (after a transaction that failed). */
  reload(): void {
    Object.assign(this, this.read());
  }
}

/** A reader of the totals of the rows of `chunks` whose ids lie in given spans (all of them without). */
export function chunkTotals(db: Database): (spans?: readonly Span[]) => Totals {
  const all = db.query<{ c: number; n: number | null; b: number | null }, []>("SELECT count(*) AS c, sum(n) AS n, sum(bytes) AS b FROM chunks");
  const some = db.query<{ c: number; n: number | null; b: number | null }, [number, number]>("SELECT count(*) AS c, sum(n) AS n, sum(bytes) AS b FROM chunks WHERE id BETWEEN ? AND ?");
  return (spans) => {
    const t: Totals = { points: 0, bytes: 0, rows: 0 };
    for (const r of spans ? spans.map(([lo, hi]) => some.get(lo, hi)!) : [all.get()!]) {
      t.rows += r.c;
      t.points += r.n ?? 0;
      t.bytes += r.b ?? 0;
    }
    return t;
  };
}
