import type { Database } from "bun:sqlite";
import { baseline, type DatabaseSchema } from "../../src/sqlite/migrations.ts";

/**
 * The agent's buffer: chunks of points, in the order they were accepted. AUTOINCREMENT
 * because a chunk id must never be reused: an ack names an id range, and a reused id
 * would let a late ack delete points that were never committed by the collector.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  enq INTEGER NOT NULL,   -- agent clock when buffered, ms
  fmt INTEGER NOT NULL,   -- body format: 1 CBOR chunk, 2 series chunk, + 16 (MARKERS_FLAG) with staleness markers (src/protocol/series-chunk.ts)
  n INTEGER NOT NULL,     -- points in the chunk
  bytes INTEGER NOT NULL, -- what the chunk counts against the size limit
  body BLOB NOT NULL      -- CBOR array of metric writes
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** Versions of the agent's buffers, buffer.db and events.db (src/sqlite/migrations.ts). */
export function bufferSchema(name: string): DatabaseSchema {
  return { name, migrations: [baseline("chunks and meta", DDL)] };
}

export function getMeta(db: Database, key: string): string | undefined {
  const row = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key);
  return row?.value;
}

export function setMeta(db: Database, key: string, value: string): void {
  db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
}
