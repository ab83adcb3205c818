import { Database } from "bun:sqlite";
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { sha256File } from "../../src/fs/sha256-file.ts";
import type { LogFileCopy } from "./log-copy.ts";
import { type DatabaseSchema, latestVersion, schemaVersion } from "../../src/sqlite/migrations.ts";

export interface CopyInfo {
  file: string;
  schemaVersion: number;
  bytes: number;
  sha256: string;
}

/** What a backup folder holds: written last, so a folder without it is not a finished backup. */
export interface Manifest {
  format: 1;
  createdAt: string;
  outpostVersion: string;
  databases: CopyInfo[];
  /** The metrics ingest log's segment files (log-copy.ts); absent in backups made before 2026-11-29. */
  ingestLog?: LogFileCopy[];
}

export const MANIFEST = "manifest.json";

/**
 * A consistent copy of a live database with `VACUUM INTO`: it reads one snapshot (WAL lets
 * writers go on meanwhile) and writes a compact file. Written under a temporary name and
 * renamed, so a copy that exists is complete.
 */
export function snapshotInto(source: string, target: string): void {
  const tmp = `${target}.partial`;
  rmSync(tmp, { force: true });
  const db = new Database(source, { readwrite: true, create: false });
  try {
    db.exec("PRAGMA busy_timeout = 10000");
    db.query("VACUUM INTO ?").run(tmp);
  } finally {
    db.close();
  }
  renameSync(tmp, target);
}

/**
 * Checks a copied database before it is trusted: SQLite's integrity check, and a schema
 * version this program can read (older ones are upgraded when the collector opens them).
 */
export function verifyCopy(path: string, schema: DatabaseSchema): CopyInfo {
  if (!existsSync(path)) throw new Error(`${path}: missing`);
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
  } catch (e) {
    throw new Error(`${path}: cannot be opened as a database (${(e as Error).message})`);
  }
  try {
    let check: string;
    try {
      check = (db.query("PRAGMA integrity_check(1)").get() as { integrity_check: string }).integrity_check;
    } catch (e) {
      throw new Error(`${path}: not a readable SQLite database (${(e as Error).message})`);
    }
    if (check !== "ok") throw new Error(`${path}: damaged (${check})`);
    const version = schemaVersion(db);
    if (version > latestVersion(schema)) {
      throw new Error(`${path}: schema version ${version} is newer than this collector knows (${latestVersion(schema)}); restore it with the Outpost version that made it`);
    }
    return { file: schema.name, schemaVersion: version, bytes: statSync(path).size, sha256: sha256File(path) };
  } finally {
    db.close();
  }
}
