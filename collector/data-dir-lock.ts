import { Database } from "bun:sqlite";
import { join } from "node:path";
import { OptionError } from "../src/config/option-error.ts";
import { makePrivateFile } from "../src/fs/private-files.ts";

export const LOCK_FILE = "collector.lock";

/**
 * Holds the data folder for one collector process: an exclusive SQLite lock on
 * `collector.lock`, which the system releases when the process ends however it ends (no stale
 * pid file). A second collector, or a restore, on the same folder is refused in one line.
 */
export function lockDataDir(dataDir: string, purpose = "a collector"): { release(): void } {
  makePrivateFile(join(dataDir, LOCK_FILE));
  const db = new Database(join(dataDir, LOCK_FILE), { create: true });
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    db.exec("CREATE TABLE IF NOT EXISTS holder (pid INTEGER, purpose TEXT, since TEXT)");
    db.exec("DELETE FROM holder");
    db.query("INSERT INTO holder VALUES (?, ?, ?)").run(process.pid, purpose, new Date().toISOString());
    db.exec("COMMIT");
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code === "SQLITE_BUSY") {
      throw new OptionError(`--data-dir ${dataDir} is in use by another collector process (stop it first, or choose another --data-dir)`);
    }
    throw e;
  }
  return { release: () => db.close() };
}
