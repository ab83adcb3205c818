import { constants, type Database } from "bun:sqlite";
import { statSync } from "node:fs";

/** SQLite's own ceiling of max_page_count: no limit. */
const NO_PAGE_LIMIT = 4_294_967_294;

/**
 * The disk room one of the agent's SQLite databases takes, kept so that a delete never needs
 * more (docs/storage.md, "The agent on a full disk"). In WAL mode a commit only appends to the
 * write-ahead log; the database file grows later, when a checkpoint copies pages past its end.
 * On a full disk that checkpoint fails, the log can then never start over, and every later
 * write, deletes included, needs the log to grow: the buffer is stuck. So:
 * - the log is kept across restarts and never truncated (its room stays the agent's, and a
 *   delete reuses it once a checkpoint has copied everything);
 * - `pendingGrowth` tells how much the next checkpoint adds to the file, so the agent can
 *   checkpoint before that exceeds what its space reserve can give back;
 * - `freeze` caps the file at the pages it has (SQLite's max_page_count): appends then only
 *   reuse pages that deletes freed, and are refused (SQLITE_FULL) when there are none;
 *   `limitGrowth` lets it grow by so much and no more.
 */
export class DatabaseRoom {
  private readonly pageSize: number;
  private readonly path: string;
  private capped = false;

  constructor(readonly db: Database) {
    this.path = db.filename;
    this.pageSize = db.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size;
    if (this.onDisk) db.fileControl(constants.SQLITE_FCNTL_PERSIST_WAL, 1);
    db.exec("PRAGMA journal_size_limit = -1");
  }

  private get onDisk(): boolean {
    return this.path !== "" && this.path !== ":memory:";
  }

  private pageCount(): number {
    return this.db.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
  }

  /** Bytes the next checkpoint must add to the database file (committed pages past its end). */
  pendingGrowth(): number {
    if (!this.onDisk) return 0;
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      return 0;
    }
    return Math.max(0, this.pageCount() * this.pageSize - size);
  }

  /**
   * Copies the log into the database file (PASSIVE: never waits for a reader). True when
   * everything was copied, so the next write starts the log over; throws SQLITE_FULL when the
   * file cannot grow.
   */
  checkpoint(): boolean {
    if (!this.onDisk || this.db.inTransaction) return false;
    const r = this.db.query<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)").get();
    return r !== null && r.busy === 0 && r.checkpointed >= r.log;
  }

  /** Caps the file at its current pages plus `bytes` (rounded down to whole pages). */
  limitGrowth(bytes: number): void {
    this.db.exec(`PRAGMA max_page_count = ${this.pageCount() + Math.max(0, Math.floor(bytes / this.pageSize))}`);
    this.capped = true;
  }

  /** Caps the file at its current pages. */
  freeze(): void {
    this.limitGrowth(0);
  }

  thaw(): void {
    this.db.exec(`PRAGMA max_page_count = ${NO_PAGE_LIMIT}`);
    this.capped = false;
  }

  get frozen(): boolean {
    return this.capped;
  }
}
