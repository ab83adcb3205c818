import type { SQL } from "bun";
import { SchemaTooNewError } from "../sqlite/migrations.ts";

/**
 * Schema versions of the stores in a PostgreSQL database, the counterpart of SQLite's
 * (src/sqlite/migrations.ts): several stores share one database, so each keeps its version in a
 * row of `outpost_schema` keyed by its name. Each step runs in its own transaction together with
 * the new version, under an advisory lock, so collectors starting together on one database run
 * each step once, and an interrupted upgrade resumes where it stopped. A version newer than the
 * program knows is refused.
 */
export interface PgMigration {
  version: number;
  description: string;
  /** Runs inside the step's transaction. */
  up(tx: SQL): Promise<void>;
}

export interface PgSchema {
  /** The store's name in outpost_schema and in messages: "alerts". */
  name: string;
  migrations: readonly PgMigration[];
}

/** Any number that is the same on every collector: the key of the migrations' advisory lock. */
const MIGRATION_LOCK = 0x6f757470; // "outp"

export async function pgSchemaVersion(sql: SQL, name: string): Promise<number> {
  // Under the lock: CREATE TABLE IF NOT EXISTS run at once by collectors starting together on an
  // empty database fails in one of them (a duplicate key in PostgreSQL's catalog).
  const rows = await sql.begin(async (tx) => {
    await tx.unsafe("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await tx.unsafe("CREATE TABLE IF NOT EXISTS outpost_schema (name TEXT PRIMARY KEY, version INTEGER NOT NULL)");
    return tx.unsafe("SELECT version FROM outpost_schema WHERE name = $1", [name]);
  });
  return rows.length === 0 ? 0 : Number(rows[0].version);
}

/** Brings the store's tables to the schema's latest version; see the module comment. */
export async function migratePostgres(sql: SQL, schema: PgSchema, onStep?: (m: PgMigration) => void): Promise<{ from: number; to: number }> {
  schema.migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${schema.name}: migration ${i} has version ${m.version}, expected ${i + 1}`);
  });
  const latest = schema.migrations.at(-1)?.version ?? 0;
  const from = await pgSchemaVersion(sql, schema.name);
  for (;;) {
    const step = await sql.begin(async (tx) => {
      await tx.unsafe("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      // Read again under the lock: another collector may have run the step meanwhile.
      const rows = await tx.unsafe("SELECT version FROM outpost_schema WHERE name = $1", [schema.name]);
      const current = rows.length === 0 ? 0 : Number(rows[0].version);
      if (current > latest) {
        throw new SchemaTooNewError(
          `the ${schema.name} tables in PostgreSQL have schema version ${current}, newer than this program knows (${latest}): they were written by a newer Outpost; run that version`,
        );
      }
      const m = schema.migrations[current];
      if (!m) return undefined;
      await m.up(tx);
      await tx.unsafe(
        "INSERT INTO outpost_schema (name, version) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET version = excluded.version",
        [schema.name, m.version],
      );
      return m;
    });
    if (!step) break;
    onStep?.(step);
  }
  return { from, to: latest };
}

/** A first migration running DDL statements (each may hold several, separated by semicolons). */
export function pgBaseline(description: string, ddl: readonly string[]): PgMigration {
  return {
    version: 1,
    description,
    async up(tx) {
      for (const s of ddl) await tx.unsafe(s);
    },
  };
}

/**
 * The SQLite layout's DDL for PostgreSQL. The stores' DDL is written in plain SQL for both;
 * two types differ: SQLite's INTEGER is 64-bit (PostgreSQL's BIGINT), and text compares byte by
 * byte in SQLite, as COLLATE "C" does in PostgreSQL (range scans on paths and the order of ids
 * depend on it, whatever the database's default collation).
 */
export function postgresDdl(sqliteDdl: string): string {
  return sqliteDdl.replace(/\bINTEGER\b/g, "BIGINT").replace(/\bTEXT\b/g, 'TEXT COLLATE "C"');
}
