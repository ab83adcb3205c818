/**
 * Writes that bind a large blob. A statement keeps the values last bound to it (SQLite's own
 * copy of a blob) until its next run binds others: each cached insert that had taken a scrape's
 * megabyte chunk held that megabyte until the next one (docs/inputs.md, "Memory"). A large blob
 * gets a statement prepared for that one run and finalized after it, which frees the copy at once.
 */
import type { Changes, Database, SQLQueryBindings, Statement } from "bun:sqlite";
import { RELEASE_MIN_BYTES } from "../runtime/release-buffer.ts";

/** Runs `sql` with `params`, on `cached` unless `blob` (one of the params) is large. */
export function runBindingBlob<P extends SQLQueryBindings[]>(db: Database, cached: Statement<unknown, P>, sql: string, params: P, blob: Uint8Array): Changes {
  if (blob.byteLength < RELEASE_MIN_BYTES) return cached.run(...params);
  const once = db.prepare(sql) as unknown as Statement<unknown, P>;
  try {
    return once.run(...params);
  } finally {
    once.finalize();
  }
}
