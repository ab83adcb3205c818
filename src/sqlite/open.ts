import { Database } from "bun:sqlite";
import { dirname } from "node:path";
import { makePrivateDir, makePrivateFile } from "../fs/private-files.ts";

export interface OpenOptions {
  /** FULL survives power loss with every commit; NORMAL may lose the last commits. */
  synchronous?: "FULL" | "NORMAL" | "OFF";
  readonly?: boolean;
  /** Page cache size in KiB (negative cache_size pragma). */
  cacheKiB?: number;
  /**
   * INCREMENTAL: a database created now can hand its free pages back to the file system
   * (`PRAGMA incremental_vacuum`); an existing one keeps its mode (changing it needs a VACUUM).
   */
  autoVacuum?: "INCREMENTAL";
}

/**
 * Opens (creating folders as needed) a SQLite database in WAL mode with our pragmas. A new
 * database file is created 0600 in a 0700 folder whatever the umask, and SQLite gives its
 * -wal and -shm files the mode of the database file.
 */
export function openDatabase(path: string, opts: OpenOptions = {}): Database {
  if (path !== ":memory:" && !opts.readonly) {
    makePrivateDir(dirname(path));
    makePrivateFile(path);
  }
  const db = new Database(path, opts.readonly ? { readonly: true } : { create: true, readwrite: true, strict: true });
  db.exec("PRAGMA busy_timeout = 5000");
  if (!opts.readonly) {
    // Takes effect only on a new, empty file (SQLite ignores it once tables exist).
    if (opts.autoVacuum) db.exec(`PRAGMA auto_vacuum = ${opts.autoVacuum}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA synchronous = ${opts.synchronous ?? "FULL"}`);
  }
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA temp_store = MEMORY");
  db.exec(`PRAGMA cache_size = -${opts.cacheKiB ?? 16384}`);
  return db;
}
