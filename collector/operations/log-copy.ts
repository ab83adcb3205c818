import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { OptionError } from "../../src/config/option-error.ts";
import { makePrivateDir } from "../../src/fs/private-files.ts";
import { sha256File } from "../../src/fs/sha256-file.ts";
import { syncPath } from "../../src/fs/sync-path.ts";
import { INGEST_LOG_DIR } from "../store/metrics/sqlite/ingest-log.ts";

/**
 * The metrics ingest log's segment files in a backup (collector/store/metrics/sqlite/ingest-log.ts):
 * the points acknowledged but not yet in chunks are there, not in metrics.db.
 */
export interface LogFileCopy {
  /** Path within the backup folder (`metrics-log/<name>.log`). */
  file: string;
  bytes: number;
  sha256: string;
}

/**
 * Copies the log's segments of `from` into `to`. Called before metrics.db is copied: a batch
 * whose segment was deleted before its copy is in chunks committed before the database's
 * snapshot, and one appended after it was acknowledged after the backup began. A segment being
 * written is copied as far as it is: a record cut off at its end is not read back.
 */
export function copyIngestLog(from: string, to: string): LogFileCopy[] {
  const src = join(from, INGEST_LOG_DIR);
  if (!existsSync(src)) return [];
  makePrivateDir(join(to, INGEST_LOG_DIR));
  const out: LogFileCopy[] = [];
  for (const name of readdirSync(src)
    .filter((n) => n.endsWith(".log"))
    .sort()) {
    const file = `${INGEST_LOG_DIR}/${name}`;
    try {
      copyFileSync(join(src, name), join(to, file));
    } catch (e) {
      // Deleted meanwhile: its batches are in chunks, which the database's copy holds.
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw e;
    }
    out.push({ file, bytes: statSync(join(to, file)).size, sha256: sha256File(join(to, file)) });
  }
  return out;
}

/** Checks a backup's log files against its manifest (before anything is replaced). */
export function verifyLogCopies(backup: string, files: readonly LogFileCopy[]): void {
  for (const f of files) {
    const path = join(backup, f.file);
    if (!f.file.startsWith(`${INGEST_LOG_DIR}/`) || f.file.includes("..") || !existsSync(path)) throw new OptionError(`${backup}: ${f.file} is missing or not an ingest log file`);
    if (sha256File(path) !== f.sha256) throw new OptionError(`${path}: its checksum differs from the manifest's (changed or damaged since the backup)`);
  }
}

/** Moves the data folder's log aside (into `aside`, made if needed); true when there was one. */
export function setLogAside(dataDir: string, aside: string): boolean {
  const dir = join(dataDir, INGEST_LOG_DIR);
  if (!existsSync(dir)) return false;
  mkdirSync(aside, { recursive: true });
  renameSync(dir, join(aside, INGEST_LOG_DIR));
  return true;
}

/** Puts the backup's log files into the data folder (its log folder was set aside). */
export function restoreLogCopies(backup: string, dataDir: string, files: readonly LogFileCopy[]): void {
  if (files.length === 0) return;
  const dir = join(dataDir, INGEST_LOG_DIR);
  makePrivateDir(dir);
  for (const f of files) {
    copyFileSync(join(backup, f.file), join(dataDir, f.file));
    syncPath(join(dataDir, f.file));
  }
  syncPath(dir);
}
