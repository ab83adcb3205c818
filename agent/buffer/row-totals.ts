import type { Database } from "bun:sqlite";

/**
 * What a table of buffer rows holds (`chunks`, the backlog; `kept`, the local window): points,
 * bytes counted against the buffer's limit, and rows, kept in step with each statement that
 * changes the table, and read again from the table after a transaction that failed.
 */
export class RowTotals {
  points = 0;
  bytes = 0;
  rows = 0;
  private readonly totals;

  constructor(db: Database, table: "chunks" | "kept") {
    this.totals = db.query<{ c: number; n: number | null; b: number | null }, []>(`SELECT count(*) AS c, sum(n) AS n, sum(bytes) AS b FROM ${table}`);
    this.reload();
  }

  account(points: number, bytes: number, rows: number): void {
    this.points += points;
    this.bytes += bytes;
    this.rows += rows;
  }

  /** Totals as stored (after a transaction that failed). */
  reload(): void {
    const t = this.totals.get()!;
    this.rows = t.c;
    this.points = t.n ?? 0;
    this.bytes = t.b ?? 0;
  }
}
