import type { Database } from "bun:sqlite";
import { OptionError } from "../config/option-error.ts";

/**
 * Schema versions of a database, kept in SQLite's `user_version`: each database lists its
 * migrations in order, version 1 first. Opening a database runs the ones it has not had, each
 * in its own transaction together with the new version number, so an upgrade interrupted
 * half-way resumes where it stopped and never leaves a half-changed layout. A database of a
 * version newer than the program knows is refused: the program would misread it.
 *
 * Version 1 of every database is its layout before versions were recorded (user_version 0),
 * written with IF NOT EXISTS so that it both creates a new database and adopts an old one.
 */
export interface Migration {
  /** 1, 2, 3...: the version the database has after this step. */
  version: number;
  /** What changes, for the log: "chunk format 2: delta-of-delta timestamps". */
  description: string;
  /** Runs inside the step's transaction: SQL, and data rewritten as needed. */
  up(db: Database): void;
  /**
   * A program that knows only the versions before this step can still read and write a
   * database at this version: the step only adds what such a program never looks at (a table, a
   * column with a default). With `floor`, it does not raise the version a program must know.
   */
  additive?: boolean;
}

export interface DatabaseSchema {
  /** The file's name, for messages: "metrics.db". */
  name: string;
  /** In order of version, without gaps, starting at 1. */
  migrations: readonly Migration[];
  /**
   * Keep in the database the oldest version a program must know to use it (table
   * schema_floor): a program older than the database, but not older than that, opens it as it is
   * (the agent's buffer after an upgrade is rolled back, docs/fleet.md).
   */
  floor?: boolean;
}

export interface MigrationResult {
  from: number;
  to: number;
  /** The steps run, in order. */
  applied: Migration[];
  /** The database is of a newer version whose steps since this program's are all additive: used as it is. */
  newer?: boolean;
}

export function schemaVersion(db: Database): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}

export function latestVersion(schema: DatabaseSchema): number {
  return schema.migrations.at(-1)?.version ?? 0;
}

/** A database written by a newer program: refused in one line (exit 2 at start-up). */
export class SchemaTooNewError extends OptionError {}

/** Brings the database to the schema's latest version; see the module comment. */
export function migrate(db: Database, schema: DatabaseSchema, onStep?: (m: Migration, from: number) => void): MigrationResult {
  schema.migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`${schema.name}: migration ${i} has version ${m.version}, expected ${i + 1}`);
  });
  const latest = latestVersion(schema);
  const from = schemaVersion(db);
  if (from > latest) {
    const floor = schema.floor ? floorOf(db) : undefined;
    if (floor !== undefined && floor <= latest) return { from, to: from, applied: [], newer: true };
    throw new SchemaTooNewError(
      `${schema.name} has schema version ${from}, newer than this program knows (${latest}${floor === undefined ? "" : `; it needs one that knows ${floor}`}): it was written by a newer Outpost; run that version, or restore a backup made by this one`,
    );
  }
  const applied: Migration[] = [];
  for (const m of schema.migrations) {
    if (m.version <= from) continue;
    db.transaction(() => {
      m.up(db);
      db.exec(`PRAGMA user_version = ${m.version}`);
      if (schema.floor) writeFloor(db, floorAt(schema, m.version));
    })();
    onStep?.(m, m.version - 1);
    applied.push(m);
  }
  // A database made before floors were kept gets one.
  if (schema.floor && applied.length === 0 && floorOf(db) === undefined) writeFloor(db, floorAt(schema, from));
  return { from, to: latest, applied };
}

/** The oldest version a program must know to use a database at `version`: that of its last step that is not additive. */
export function floorAt(schema: DatabaseSchema, version: number): number {
  let floor = 1;
  for (const m of schema.migrations) if (m.version <= version && !m.additive) floor = m.version;
  return floor;
}

function floorOf(db: Database): number | undefined {
  try {
    return db.query<{ version: number }, []>("SELECT version FROM schema_floor").get()?.version;
  } catch {
    return undefined;
  }
}

function writeFloor(db: Database, version: number): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_floor (version INTEGER NOT NULL)");
  db.exec("DELETE FROM schema_floor");
  db.query("INSERT INTO schema_floor (version) VALUES (?)").run(version);
}

/** A first migration that runs the layout's DDL statements (CREATE ... IF NOT EXISTS). */
export function baseline(description: string, ddl: string | readonly string[]): Migration {
  const statements = typeof ddl === "string" ? [ddl] : ddl;
  return {
    version: 1,
    description,
    up(db) {
      for (const s of statements) db.exec(s);
    },
  };
}
