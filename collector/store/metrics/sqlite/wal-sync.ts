import { close, closeSync, fdatasync, fsync, open, openSync } from "node:fs";

/**
 * Durability of the metrics store's commits without holding the main thread in fsync (issue 28).
 * With `--synchronous FULL` SQLite syncs the write-ahead log inside every COMMIT: about 1.4 ms
 * on the test VM during which the main thread, and so ingest, stood still (a third of its time
 * under HTTP ingest). The connection now commits with `synchronous = NORMAL` (in WAL mode that
 * differs from FULL only in that sync of the log after each transaction: checkpoints and the
 * log's header are synced alike) and this class syncs the log file in the runtime's thread pool
 * instead, while the main thread goes on with the next requests; a write is acknowledged, and
 * its points applied to the heads, only once a sync that started after its commit has
 * finished. So what FULL promises still holds: an acknowledged point survives power loss, and
 * nothing is readable before it is on disk. Syncs do not overlap: the commits made while one
 * runs share the next (group commit, as before).
 *
 * Since the ingest log left the database (ingest-log.ts) a sync is of the log's active segment
 * and, when a commit asked for it (new series or tenants, definitions, a flush whose log
 * segments are to be deleted), of the database's write-ahead log too. Both with fdatasync, as
 * SQLite syncs its own files on Linux: the data and the size a read needs, not the file's times
 * (into the log's prepared space, ingest-log.ts, that is one device write instead of three).
 */
export class WalSync {
  private fd: number | undefined;
  private running: Promise<void> | undefined;
  private waiting: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | undefined;
  private closed = false;
  /** A commit since the last sync started asked for the database's log to be synced too. */
  private dbWanted = false;
  /** Syncs run (for tests and the figures). */
  syncs = 0;

  /** `sync` stands for fs.fdatasync of the ingest log (tests hold it back or fail it); `logFd` is its active segment. */
  constructor(
    private readonly walPath: string,
    private readonly sync: (fd: number, done: (e: Error | null) => void) => void = fdatasync,
    private readonly logFd: () => number | undefined = () => undefined,
  ) {}

  /**
   * Resolves once every append to the ingest log made before this call is on disk, and with
   * `db` every commit of the database too (rejects when a sync failed).
   */
  afterCommit(db = true): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the metrics store is closed"));
    if (db) this.dbWanted = true;
    // A sync already running may have started before this commit: the next one covers it.
    if (this.running) {
      if (!this.waiting) {
        let resolve!: () => void;
        let reject!: (e: unknown) => void;
        const promise = new Promise<void>((res, rej) => {
          resolve = res;
          reject = rej;
        });
        this.waiting = { promise, resolve, reject };
      }
      return this.waiting.promise;
    }
    return this.start();
  }

  private start(): Promise<void> {
    const db = this.dbWanted;
    this.dbWanted = false;
    const p = new Promise<void>((resolve, reject) => {
      let left = 1;
      let failed: unknown;
      const done = (e: Error | null) => {
        if (e && failed === undefined) failed = syncError(e);
        if (--left > 0) return;
        if (failed === undefined) resolve();
        else reject(failed);
      };
      if (db) {
        let fd: number;
        try {
          // Opened at the first sync: SQLite creates the log file with the first write.
          fd = this.fd ??= openSync(this.walPath, "r");
        } catch (e) {
          reject(syncError(e));
          return;
        }
        left++;
        fdatasync(fd, done);
      }
      this.syncs++;
      const log = this.logFd();
      if (log === undefined) done(null);
      else this.sync(log, done);
    });
    this.running = p;
    const next = () => {
      this.running = undefined;
      const w = this.waiting;
      this.waiting = undefined;
      if (w) this.start().then(w.resolve, w.reject);
    };
    p.then(next, next);
    return p;
  }

  /** Runs `fn` once no sync is running (a segment's descriptor is closed only then). */
  whenIdle(fn: () => void): void {
    if (this.running) this.running.then(fn, fn);
    else fn();
  }

  /** Waits until no sync runs or waits (before the store's final flush). */
  async drain(): Promise<void> {
    while (this.running) await this.running.catch(() => {});
  }

  close(): void {
    this.closed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Syncs the file at `path` in the thread pool (nothing to do when it does not exist). */
export function syncFile(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    open(path, "r", (e, fd) => {
      if (e) return e.code === "ENOENT" ? resolve() : reject(syncError(e));
      fsync(fd, (err) => close(fd, () => (err ? reject(syncError(err)) : resolve())));
    });
  });
}

/** A failed sync as SQLite would report it (SQLITE_IOERR_FSYNC): a storage failure, answered 503. */
function syncError(e: unknown): Error {
  const err = new Error(`syncing the metrics log failed: ${(e as Error)?.message ?? String(e)}`);
  (err as Error & { code: string }).code = "SQLITE_IOERR_FSYNC";
  return err;
}
