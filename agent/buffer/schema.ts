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

/**
 * Version 2: the local window (history-window.ts), acknowledged rows kept as they were sent,
 * with the ids they had. events.db has the table too, always empty.
 */
const KEPT = `
CREATE TABLE IF NOT EXISTS kept (
  id INTEGER PRIMARY KEY,  -- the row's id in chunks: ids stay unique across both tables
  enq INTEGER NOT NULL,
  fmt INTEGER NOT NULL,
  n INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  body BLOB NOT NULL
);
`;

/**
 * Version 3: acknowledged rows stay in `chunks`; `acked` holds the id ranges acknowledged
 * (agent/buffer/acked-ranges.ts), so an acknowledgement writes one small row instead of copying
 * row bodies into `kept`. `kept` stays, empty: rows an agent of version 2 leaves in it are taken
 * back into `chunks` as acknowledged rows at the next open (that is the migration from version 2).
 */
const ACKED = `
CREATE TABLE IF NOT EXISTS acked (
  lo INTEGER PRIMARY KEY,  -- first and last chunk id of an acknowledged range; ranges never overlap
  hi INTEGER NOT NULL
);
`;

/** Versions of the agent's buffers, buffer.db and events.db (src/sqlite/migrations.ts). */
export function bufferSchema(name: string): DatabaseSchema {
  return {
    name,
    // An upgrade rolled back leaves the older agent a buffer of the newer one's schema: steps
    // older agents can ignore are additive, and the buffer stays theirs (docs/fleet.md).
    floor: true,
    migrations: [
      baseline("chunks and meta", DDL),
      // An agent that knows only version 1 forwards the chunks and leaves the kept rows alone.
      { version: 2, description: "kept: acknowledged rows of the local window", additive: true, up: (db) => db.exec(KEPT) },
      // An agent that knows only version 1 or 2 takes every row of `chunks` for backlog: it
      // forwards the window's rows once more (the collector keeps one point per series and time)
      // and leaves `acked` alone. This agent then drops the ranges recorded before it (their
      // session is not the one before: acked-ranges.ts) and takes in what version 2 left in `kept`.
      { version: 3, description: "acked: acknowledged id ranges, rows left in chunks", additive: true, up: (db) => db.exec(ACKED) },
    ],
  };
}

export function getMeta(db: Database, key: string): string | undefined {
  const row = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key);
  return row?.value;
}

export function setMeta(db: Database, key: string, value: string): void {
  db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
}
