import type { Database } from "bun:sqlite";
import { baseline, type DatabaseSchema } from "../../../../src/sqlite/migrations.ts";

/**
 * Layout of metrics.db (see docs/storage.md):
 * - ingest_log: the ingest log until 2026-11-29 (every committed write batch as one blob, until
 *   its points are flushed); rows left there are replayed and emptied, new batches go to the
 *   segment files of ingest-log.ts;
 * - chunks: immutable points of one series, never spanning a UTC day, each with the time it
 *   expires (written + retention; NULL in chunks written before version 2); since version 3 one
 *   codec block in `body` (format 1), before it raw column blobs in ts/vals/tags (format 0);
 * - series: one row per (tenant, type, metric) with definition fields and flush progress.
 *
 * Version 1 is the layout of release 0.1.0; each later version is a step below.
 */
const V1 = `
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

/** 2: chunks carry expires_at (retention counts from the write); the range index covers it. */
function chunkExpiry(db: Database): void {
  // Chunks of version 1 keep expiring by timestamp (expires_at NULL), new ones by write time.
  db.exec("ALTER TABLE chunks ADD COLUMN expires_at INTEGER");
  db.exec("DROP INDEX IF EXISTS chunks_by_series");
  // Covering for the range lookup (expiry included), which then fetches only the chunks not in the cache.
  db.exec("CREATE INDEX IF NOT EXISTS chunks_by_series_expiry ON chunks (sid, start_ts, end_ts, expires_at)");
  // Retention deletes what has expired, across all series, with one range scan.
  db.exec("CREATE INDEX IF NOT EXISTS chunks_by_expiry ON chunks (expires_at)");
}

/**
 * 3: a chunk is one point-codec block (src/codec) in `body`, format 1. Chunks already stored
 * keep format 0 (raw float64 columns) and are read as they are until retention removes them:
 * the step is instant and needs no free space (see docs/storage.md, "Compressed chunks").
 * New chunks leave ts and vals empty (NOT NULL in version 1, which SQLite cannot relax).
 */
function chunkBlocks(db: Database): void {
  db.exec("ALTER TABLE chunks ADD COLUMN format INTEGER NOT NULL DEFAULT 0");
  db.exec("ALTER TABLE chunks ADD COLUMN body BLOB");
}

/**
 * 4: rollup tiers (docs/storage.md, "Rollup tiers"). `rollups` holds one compressed block per
 * series, tier (its step in ms) and span of buckets, with the time it was last written (its
 * tier's retention counts from there); `rollup_progress` the id of the last chunk each tier
 * holds, and `rollup_series_marks` how far each series has got in the span of chunks being
 * rolled up (rollups.ts). No rows: the roller computes the tiers of the chunks already stored in the background,
 * and until it has, queries read raw points. A deleted series takes its blocks along.
 */
function rollupTables(db: Database): void {
  db.exec(`CREATE TABLE IF NOT EXISTS rollups (
    sid INTEGER NOT NULL,
    step INTEGER NOT NULL,
    block_start INTEGER NOT NULL,
    written INTEGER NOT NULL,
    body BLOB NOT NULL
  )`);
  db.exec("CREATE UNIQUE INDEX IF NOT EXISTS rollups_by_block ON rollups (sid, step, block_start)");
  db.exec("CREATE INDEX IF NOT EXISTS rollups_by_written ON rollups (step, written)");
  db.exec("CREATE TABLE IF NOT EXISTS rollup_progress (step INTEGER PRIMARY KEY, mark INTEGER NOT NULL)");
  db.exec("CREATE TABLE IF NOT EXISTS rollup_series_marks (sid INTEGER PRIMARY KEY, mark INTEGER NOT NULL)");
  db.exec("CREATE TRIGGER IF NOT EXISTS rollups_of_deleted_series AFTER DELETE ON series BEGIN DELETE FROM rollups WHERE sid = old.sid; DELETE FROM rollup_series_marks WHERE sid = old.sid; END");
}

/**
 * 5: rollup blocks may be kept in segments (src/metrics/rollup/block-segments.ts: a block of
 * version 2 in `rollups.body`). Nothing to change in the rows: blocks already stored are read as
 * they are, and a step writes the new form. The step is there so that a program that knows only
 * version 4, which would read such a block as corrupt, refuses the database at start in one line.
 */
function segmentedRollupBlocks(): void {}

/** Versions of metrics.db (src/sqlite/migrations.ts); a change of layout or chunk format adds a step. */
export const METRICS_DB: DatabaseSchema = {
  name: "metrics.db",
  migrations: [
    baseline("series, chunks and the ingest log", V1),
    { version: 2, description: "chunks carry their expiry time (retention counts from the write)", up: chunkExpiry },
    { version: 3, description: "chunk format 1: one compressed, checksummed point block per chunk", up: chunkBlocks },
    { version: 4, description: "rollup tiers: aggregates per series and bucket beside the chunks", up: rollupTables },
    { version: 5, description: "rollup blocks kept in segments: a step appends the rows it changed", up: segmentedRollupBlocks },
  ],
};
