import { releaseBuffer } from "../../src/runtime/release-buffer.ts";

/**
 * Rows just committed to the backlog, kept in memory until the send path first reads them, so
 * a forwarder that keeps up sends a fresh chunk from the bytes it was encoded into instead of
 * reading the row back from SQLite (docs/inputs.md, "Measured"). The row stays the source of
 * truth: an entry is added only once its transaction has committed, a read takes it out (a
 * resend, after an outage or a restart, reads the row), and anything that may change or remove
 * rows other than appends forgets them all (compaction writes merged rows under ids of the rows
 * it merged). Only bodies in buffers of their own (large encodings) are kept, at most
 * `maxBytes` of them: a link that is down leaves them to SQLite, as before.
 */
export interface FreshRow {
  body: Uint8Array;
  n: number;
  fmt: number;
}

/** The writer's chunk: `kept` once its body is this memory's to free (the writer leaves it then). */
export interface KeptMark {
  kept?: boolean;
}

export class FreshRows {
  private readonly rows = new Map<number, FreshRow>();
  private pending: [number, FreshRow, KeptMark][] = [];
  private bytes = 0;
  /** Chunks the send path took from memory (tests, telemetry). */
  taken = 0;

  constructor(private readonly maxBytes = 4 * 1024 * 1024) {}

  /** A row inserted in the transaction under way (kept only if it commits). */
  inserted(id: number, row: FreshRow, mark: KeptMark): void {
    this.pending.push([id, row, mark]);
  }

  /** The transaction committed: its rows are kept, the oldest let go past the limit. */
  committed(): void {
    for (const [id, row, mark] of this.pending) {
      mark.kept = true;
      this.rows.set(id, row);
      this.bytes += row.body.byteLength;
    }
    this.pending = [];
    for (const [id, row] of this.rows) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(id, row);
    }
  }

  /** The transaction failed: nothing of it is kept (its encodings are freed by their writer). */
  rolledBack(): void {
    this.pending = [];
  }

  /**
   * Takes the rows of `ids` out when every one of them is here (the caller then owns their
   * bodies); otherwise forgets those that are and answers undefined (the caller reads them all).
   */
  take(ids: readonly number[]): FreshRow[] | undefined {
    if (this.rows.size === 0) return undefined;
    let all = true;
    for (const id of ids) if (!this.rows.has(id)) all = false;
    if (!all) {
      for (const id of ids) {
        const row = this.rows.get(id);
        if (row) this.drop(id, row);
      }
      return undefined;
    }
    const out = ids.map((id) => this.rows.get(id)!);
    for (const id of ids) this.rows.delete(id);
    for (const r of out) this.bytes -= r.body.byteLength;
    this.taken += out.length;
    return out;
  }

  /** Rows may have changed or gone: the send path reads them from SQLite. */
  forget(): void {
    for (const [id, row] of this.rows) this.drop(id, row);
    this.pending = [];
  }

  get size(): number {
    return this.rows.size;
  }

  private drop(id: number, row: FreshRow): void {
    this.rows.delete(id);
    this.bytes -= row.body.byteLength;
    // Its own buffer, given to no one else: freed now, not at the next full collection.
    releaseBuffer(row.body);
  }
}
