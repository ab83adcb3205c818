import { closeSync, fsync, openSync } from "node:fs";

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
 */
export class WalSync {
  private fd: number | undefined;
  private running: Promise<void> | undefined;
  private waiting: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | undefined;
  /** Syncs run (for tests and the figures). */
  syncs = 0;

  /** `sync` stands for fs.fsync (tests hold it back or fail it). */
  constructor(
    private readonly walPath: string,
    private readonly sync: (fd: number, done: (e: Error | null) => void) => void = fsync,
  ) {}

  /** Resolves once every commit made before this call is on disk (rejects when the sync failed). */
  afterCommit(): Promise<void> {
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
    const p = new Promise<void>((resolve, reject) => {
      let fd: number;
      try {
        // Opened at the first sync: SQLite creates the log file with the first write.
        fd = this.fd ??= openSync(this.walPath, "r");
      } catch (e) {
        reject(syncError(e));
        return;
      }
      this.syncs++;
      this.sync(fd, (e) => (e ? reject(syncError(e)) : resolve()));
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

  /** Waits until no sync runs or waits (before the store's final flush). */
  async drain(): Promise<void> {
    while (this.running) await this.running.catch(() => {});
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/** A failed sync as SQLite would report it (SQLITE_IOERR_FSYNC): a storage failure, answered 503. */
function syncError(e: unknown): Error {
  const err = new Error(`syncing the metrics log failed: ${(e as Error)?.message ?? String(e)}`);
  (err as Error & { code: string }).code = "SQLITE_IOERR_FSYNC";
  return err;
}
