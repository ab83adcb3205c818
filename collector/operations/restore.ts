import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { join, resolve } from "node:path";
import { OptionError } from "../../src/config/option-error.ts";
import { ensureWritableDir } from "../../src/config/writable-dir.ts";
import { tightenTree } from "../../src/fs/private-files.ts";
import { syncPath } from "../../src/fs/sync-path.ts";
import type { Logger } from "../../src/log/logger.ts";
import { lockDataDir } from "../data-dir-lock.ts";
import { COLLECTOR_DATABASES } from "../store/databases.ts";
import { MANIFEST, type Manifest, verifyCopy } from "./database-copy.ts";
import { restoreLogCopies, setLogAside, verifyLogCopies } from "./log-copy.ts";

function readManifest(from: string): Manifest {
  const path = join(from, MANIFEST);
  if (!existsSync(path)) throw new OptionError(`${from} has no ${MANIFEST}: not a finished backup (made by the backup command)`);
  try {
    const m = JSON.parse(readFileSync(path, "utf8")) as Manifest;
    if (m.format !== 1 || !Array.isArray(m.databases)) throw new Error("unknown format");
    return m;
  } catch (e) {
    throw new OptionError(`${path} cannot be read: ${(e as Error).message}`);
  }
}

/**
 * Puts a backup made by `backupDatabases` back into `dataDir`, with the collector stopped (the
 * data folder's lock is taken, so a running collector makes this fail). Every copy is checked
 * first (checksum, SQLite integrity, schema version): nothing is replaced unless all are
 * good. The databases replaced are moved to `before-restore-<time>/` in the data folder, not
 * deleted. A backup of an older version is upgraded by the collector when it next starts.
 */
export async function restoreDatabases(backup: string, dataDir: string, log: Logger): Promise<{ restored: string[]; setAside?: string }> {
  const from = resolve(backup);
  const manifest = readManifest(from);
  const byName = new Map(COLLECTOR_DATABASES.map((s) => [s.name, s]));
  for (const entry of manifest.databases) {
    const schema = byName.get(entry.file);
    if (!schema) throw new OptionError(`${from}: ${entry.file} is not a database this collector knows`);
    log.info(`checking ${entry.file}`);
    let info: ReturnType<typeof verifyCopy>;
    try {
      info = verifyCopy(join(from, entry.file), schema);
    } catch (e) {
      throw new OptionError((e as Error).message);
    }
    if (info.sha256 !== entry.sha256) throw new OptionError(`${join(from, entry.file)}: its checksum differs from the manifest's (changed or damaged since the backup)`);
  }

  verifyLogCopies(from, manifest.ingestLog ?? []);

  const to = ensureWritableDir(dataDir, "--data-dir", log);
  const lock = lockDataDir(to, "a restore");
  try {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    const aside = join(to, `before-restore-${stamp}`);
    let setAside: string | undefined;
    // Every database file of the folder goes, also those the backup lacks: a restored folder
    // must not mix the backup's metrics with newer alerts.
    for (const schema of COLLECTOR_DATABASES) {
      for (const suffix of ["", "-wal", "-shm"]) {
        const f = join(to, schema.name + suffix);
        if (!existsSync(f)) continue;
        mkdirSync(aside, { recursive: true });
        renameSync(f, join(aside, schema.name + suffix));
        setAside = aside;
      }
    }
    // The folder's ingest log holds batches of the replaced metrics.db: it goes with it.
    if (setLogAside(to, aside)) setAside = aside;
    if (setAside) log.info("the databases replaced were moved aside (delete them once the restore is checked)", { folder: setAside });
    const restored: string[] = [];
    for (const entry of manifest.databases) {
      const target = join(to, entry.file);
      copyFileSync(join(from, entry.file), `${target}.partial`);
      syncPath(`${target}.partial`);
      renameSync(`${target}.partial`, target);
      restored.push(entry.file);
      log.info(`restored ${entry.file}`, { schemaVersion: entry.schemaVersion });
    }
    restoreLogCopies(from, to, manifest.ingestLog ?? []);
    // Copies of backups made before they were private keep their mode: the restored files are the folder's own.
    tightenTree(to);
    log.info("restore complete: start the collector", { dataDir: to, backupOf: manifest.createdAt, madeBy: manifest.outpostVersion });
    return { restored, setAside };
  } finally {
    lock.release();
  }
}
