/**
 * A PostgreSQL database of its own for each test file: created with a random name on the tests'
 * own server (an initdb cluster of the run, postgres-server.ts) and dropped afterwards, so that
 * nothing is shared between test files. TEST_POSTGRES_URL may name another server (a URL to its
 * maintenance database); not OUTPOST_…, which the programs would refuse as an unknown option of
 * theirs.
 */
import { SQL } from "bun";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll } from "vitest";
import { openPostgres } from "../../src/postgres/connect.ts";
import { migratePostgres } from "../../src/postgres/migrations.ts";
import { POSTGRES_SCHEMAS } from "../../collector/store/postgres.ts";
import { postgresAdminUrl } from "./postgres-server.ts";

export interface TestDatabase {
  name: string;
  /** URL of the database (with the server's password: keep it off command lines). */
  url: string;
  /** A pool on the database, for the test's own statements and stores. */
  sql: SQL;
  /** The URL of the same database reached through `port` on 127.0.0.1 (a proxy in front). */
  urlVia(port: number): string;
  /** Closes the pool and drops the database (connections still open are cut). */
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `outpost_test_${crypto.randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const adminUrl = await postgresAdminUrl();
  const admin = new SQL(adminUrl, { max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } catch (e) {
    await admin.close();
    throw new Error(`cannot create a database on the tests' PostgreSQL server: ${(e as Error).message}`);
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const url = u.toString();
  // The collector's settings (src/postgres/connect.ts), so that stores under test run as in production.
  const sql = openPostgres(url, { max: 4 });
  return {
    name,
    url,
    sql,
    urlVia(port) {
      const v = new URL(url);
      v.hostname = "127.0.0.1";
      v.port = String(port);
      return v.toString();
    },
    async drop() {
      await sql.close({ timeout: 1 });
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

/** The tables of every PostgreSQL store, at their current version, in `sql`'s database. */
export async function migrateAll(sql: SQL): Promise<void> {
  for (const schema of POSTGRES_SCHEMAS) await migratePostgres(sql, schema);
}

/**
 * The database of a test file, with its hooks registered: created with every store's tables
 * before the file's tests, dropped after them, and after each test `cleanup` (the file's own:
 * closing its collectors and stores, which must not hold the tables) then a TRUNCATE of
 * `truncate`. The result reads through to the database once beforeAll has created it.
 */
export function fileTestDatabase(o: { truncate: readonly string[]; cleanup?: () => Promise<unknown> | unknown }): TestDatabase {
  let db: TestDatabase | undefined;
  const get = (): TestDatabase => {
    if (!db) throw new Error("the test database is created in beforeAll: use it inside hooks and tests");
    return db;
  };
  beforeAll(async () => {
    db = await createTestDatabase();
    await migrateAll(db.sql);
  });
  afterAll(() => db?.drop());
  afterEach(async () => {
    await o.cleanup?.();
    if (o.truncate.length > 0) await get().sql.unsafe(`TRUNCATE ${o.truncate.join(", ")}`);
  });
  return {
    get name() {
      return get().name;
    },
    get url() {
      return get().url;
    },
    get sql() {
      return get().sql;
    },
    urlVia: (port) => get().urlVia(port),
    drop: () => get().drop(),
  };
}

/**
 * A TCP proxy in front of the PostgreSQL server: `cut()` closes every connection and refuses new
 * ones, as a server that went down or a network that broke; `restore()` lets them through again.
 */
export class PostgresProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async start(port = 0): Promise<this> {
    const target = new URL(await postgresAdminUrl());
    const server = createServer((client) => {
      const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
    const a = server.address();
    this.port = typeof a === "object" && a ? a.port : port;
    this.server = server;
    return this;
  }

  /** Stops listening and cuts every open connection. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Listens again on the same port. */
  async restore(): Promise<void> {
    await this.start(this.port);
  }

  close(): Promise<void> {
    return this.cut();
  }
}

/**
 * Makes every `op` on `table` fail (an exception raised by a trigger, not a storage failure)
 * until the returned function is called: PostgreSQL's counterpart of full-disk.ts's
 * failStatements, to break one step of a transaction precisely.
 */
export async function failPostgresStatements(sql: SQL, table: string, op: "INSERT" | "UPDATE" | "DELETE" = "INSERT"): Promise<() => Promise<void>> {
  const name = `test_fail_${table}_${op.toLowerCase()}`;
  await sql.unsafe(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure of ${op} on ${table}'; END $$`);
  await sql.unsafe(`CREATE TRIGGER ${name} BEFORE ${op} ON ${table} FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  return async () => {
    await sql.unsafe(`DROP TRIGGER IF EXISTS ${name} ON ${table}`);
    await sql.unsafe(`DROP FUNCTION IF EXISTS ${name}()`);
  };
}

/**
 * fileTestDatabase for the PostgreSQL metrics store's tests: after each test the closers pushed
 * onto `cleanups` run, newest first, then the metrics tables (and `alsoTruncate`) are emptied.
 */
export function metricsTestDatabase(alsoTruncate: readonly string[] = []): { db: TestDatabase; cleanups: (() => Promise<unknown>)[] } {
  const cleanups: (() => Promise<unknown>)[] = [];
  const db = fileTestDatabase({
    truncate: ["metric_tenants", "metric_series", "metric_blocks", "metric_chunks", "metric_rollups", "metric_rollup_queue", "metric_rollup_tiers", ...alsoTruncate],
    async cleanup() {
      for (const c of cleanups.splice(0).reverse()) await c();
    },
  });
  return { db, cleanups };
}
