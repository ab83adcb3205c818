import type { Database } from "bun:sqlite";

/**
 * Layout of metrics.db (see docs/storage.md):
 * - ingest_log: every committed write batch as one blob, until its points are flushed;
 * - chunks: immutable column blobs of one series, never spanning a UTC day;
 * - series: one row per (tenant, type, metric) with definition fields and flush progress.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS tenants (
  id TEXT PRIMARY KEY,
  retentions TEXT,
  created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS series (
  sid INTEGER PRIMARY KEY,
  tenant TEXT NOT NULL,
  type TEXT NOT NULL,
  metric TEXT NOT NULL,
  tags TEXT,
  retention INTEGER,
  min_ts INTEGER,
  max_ts INTEGER,
  flushed_seq INTEGER NOT NULL DEFAULT 0,
  UNIQUE (tenant, type, metric)
);
CREATE TABLE IF NOT EXISTS ingest_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, -- monotonic: replay compares it with series.flushed_seq
  body BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
  cid INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused: decoded chunks are cached by id
  sid INTEGER NOT NULL,
  start_ts INTEGER NOT NULL,
  end_ts INTEGER NOT NULL,
  n INTEGER NOT NULL,
  ts BLOB NOT NULL,
  vals BLOB NOT NULL,
  tags BLOB
);
-- Covering for the range lookup, which then fetches only the chunks not in the cache.
CREATE INDEX IF NOT EXISTS chunks_by_series ON chunks (sid, start_ts, end_ts);
`;

export const SCHEMA_VERSION = 1;

export function migrate(db: Database): void {
  const v = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (v > SCHEMA_VERSION) throw new Error(`metrics.db has schema version ${v}, newer than this collector (${SCHEMA_VERSION})`);
  db.transaction(() => {
    db.exec(DDL);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  })();
}
