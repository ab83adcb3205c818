import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { OptionError } from "../../src/config/option-error.ts";
import { OUTPOST_VERSION } from "../../src/config/version.ts";
import { makePrivateDir, tightenTree } from "../../src/fs/private-files.ts";
import type { Logger } from "../../src/log/logger.ts";
import { COLLECTOR_DATABASES } from "../store/databases.ts";
import { type CopyInfo, MANIFEST, type Manifest, snapshotInto, verifyCopy } from "./database-copy.ts";
import { copyIngestLog } from "./log-copy.ts";

const mib = (n: number) => (n < 1024 ** 2 ? `${Math.ceil(n / 1024)} KiB` : `${(n / 1024 ** 2).toFixed(1)} MiB`);

/**
 * Copies every database of `dataDir` into `target` (created; it must be empty), each one a
 * consistent snapshot taken while the collector may go on running and ingesting, then writes
 * the manifest. Databases are copied one after the other: each copy is consistent in itself,
 * and a point acknowledged before the backup started is in it (docs/operations.md).
 */
export async function backupDatabases(dataDir: string, target: string, log: Logger): Promise<Manifest> {
  const from = resolve(dataDir);
  const to = resolve(target);
  if (!existsSync(from)) throw new OptionError(`--data-dir ${from} does not exist`);
  if (existsSync(to) && readdirSync(to).length > 0) throw new OptionError(`${to} is not empty: back up into a new folder`);
  // A backup holds every tenant's data: only its owner may read it, whatever the umask.
  makePrivateDir(to);
  tightenTree(to);
  const copies: CopyInfo[] = [];
  const started = Date.now();
  // Before metrics.db (log-copy.ts says why): the points acknowledged but not yet in chunks.
  const ingestLog = copyIngestLog(from, to);
  if (ingestLog.length > 0) log.info("copied the metrics ingest log", { files: ingestLog.length, size: mib(ingestLog.reduce((n, f) => n + f.bytes, 0)) });
  for (const schema of COLLECTOR_DATABASES) {
    const source = join(from, schema.name);
    if (!existsSync(source)) {
      log.info(`skipping ${schema.name}: not in the data folder (never used)`);
      continue;
    }
    const t0 = Date.now();
    log.info(`copying ${schema.name}`);
    snapshotInto(source, join(to, schema.name));
    const info = verifyCopy(join(to, schema.name), schema);
    copies.push(info);
    log.info(`copied ${schema.name}`, { size: mib(info.bytes), schemaVersion: info.schemaVersion, seconds: ((Date.now() - t0) / 1000).toFixed(1) });
  }
  if (copies.length === 0) throw new OptionError(`${from} holds no collector database: is --data-dir right?`);
  const manifest: Manifest = { format: 1, createdAt: new Date().toISOString(), outpostVersion: OUTPOST_VERSION, databases: copies, ingestLog };
  writeFileSync(join(to, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  tightenTree(to);
  log.info("backup complete", { folder: to, databases: copies.length, size: mib(copies.reduce((n, c) => n + c.bytes, 0)), seconds: ((Date.now() - started) / 1000).toFixed(1) });
  return manifest;
}
