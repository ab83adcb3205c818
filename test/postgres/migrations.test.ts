import type { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratePostgres, type PgMigration, pgBaseline, pgSchemaVersion, postgresDdl } from "../../src/postgres/migrations.ts";
import { SchemaTooNewError } from "../../src/sqlite/migrations.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/postgres.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const v1 = pgBaseline("readings", ["CREATE TABLE IF NOT EXISTS readings (id BIGINT PRIMARY KEY, celsius DOUBLE PRECISION NOT NULL)"]);
/** Version 2 changes the data, as a new format would: Celsius becomes Kelvin. */
const v2: PgMigration = {
  version: 2,
  description: "kelvin",
  async up(tx: SQL) {
    await tx.unsafe("ALTER TABLE readings ADD COLUMN kelvin DOUBLE PRECISION");
    await tx.unsafe("UPDATE readings SET kelvin = celsius + 273.15");
  },
};

describe("PostgreSQL schema versions", () => {
  it("a new store gets every step; an old one only those it lacks, its data kept; each store keeps its own version", async () => {
    expect(await migratePostgres(db.sql, { name: "thermo", migrations: [v1] })).toEqual({ from: 0, to: 1 });
    await db.sql.unsafe("INSERT INTO readings (id, celsius) VALUES (1, 20), (2, -273.15)");
    const steps: number[] = [];
    expect(await migratePostgres(db.sql, { name: "thermo", migrations: [v1, v2] }, (m) => steps.push(m.version))).toEqual({ from: 1, to: 2 });
    expect(steps).toEqual([2]);
    expect((await db.sql.unsafe("SELECT kelvin FROM readings ORDER BY id")).map((r: { kelvin: number }) => r.kelvin)).toEqual([293.15, 0]);
    expect(await pgSchemaVersion(db.sql, "thermo")).toBe(2);
    expect(await pgSchemaVersion(db.sql, "other")).toBe(0);
    // Again: nothing to do.
    expect(await migratePostgres(db.sql, { name: "thermo", migrations: [v1, v2] }, (m) => steps.push(m.version))).toEqual({ from: 2, to: 2 });
    expect(steps).toEqual([2]);
  });

  it("collectors starting together run each step once", async () => {
    let runs = 0;
    const slow: PgMigration = {
      version: 1,
      description: "counted",
      async up(tx) {
        runs++;
        await tx.unsafe("CREATE TABLE counted (id BIGINT)");
        await Bun.sleep(50);
      },
    };
    const schema = { name: "counted", migrations: [slow] };
    // Separate pools, as separate collectors would have.
    const { SQL } = await import("bun");
    const pools = [new SQL(db.url, { max: 1 }), new SQL(db.url, { max: 1 }), new SQL(db.url, { max: 1 })];
    await Promise.all(pools.map((p) => migratePostgres(p, schema)));
    for (const p of pools) await p.close();
    expect(runs).toBe(1);
  });

  it("collectors starting together on an empty database all start (outpost_schema created once)", async () => {
    const { SQL } = await import("bun");
    // The race is a matter of timing: several empty databases, four collectors on each.
    for (let round = 0; round < 4; round++) {
      const fresh = await createTestDatabase();
      const pools = Array.from({ length: 4 }, () => new SQL(fresh.url, { max: 1 }));
      try {
        const results = await Promise.allSettled(pools.map((p) => migratePostgres(p, { name: "thermo", migrations: [v1] })));
        expect(results.map((r) => (r.status === "rejected" ? String(r.reason) : "ok"))).toEqual(["ok", "ok", "ok", "ok"]);
        expect(await pgSchemaVersion(fresh.sql, "thermo")).toBe(1);
      } finally {
        for (const p of pools) await p.close();
        await fresh.drop();
      }
    }
  });

  it("a failed step leaves the previous version and nothing of the step; tables of a newer program are refused", async () => {
    const broken: PgMigration = {
      version: 2,
      description: "half",
      async up(tx) {
        await tx.unsafe("CREATE TABLE half_done (id BIGINT)");
        await tx.unsafe("SELECT * FROM no_such_table");
      },
    };
    const base = pgBaseline("base", ["CREATE TABLE IF NOT EXISTS base_t (id BIGINT)"]);
    await migratePostgres(db.sql, { name: "fragile", migrations: [base] });
    await expect(migratePostgres(db.sql, { name: "fragile", migrations: [base, broken] })).rejects.toThrow(/no_such_table/);
    expect(await pgSchemaVersion(db.sql, "fragile")).toBe(1);
    expect([...(await db.sql.unsafe("SELECT to_regclass('half_done') AS t"))]).toEqual([{ t: null }]);

    await db.sql.unsafe("UPDATE outpost_schema SET version = 7 WHERE name = 'fragile'");
    const err = await migratePostgres(db.sql, { name: "fragile", migrations: [base] }).catch((e) => e);
    expect(err).toBeInstanceOf(SchemaTooNewError);
    expect(err.message).toMatch(/fragile tables in PostgreSQL have schema version 7, newer than this program knows \(1\)/);
  });

  it("SQLite DDL becomes PostgreSQL's: 64-bit integers, byte-order text", () => {
    expect(postgresDdl("CREATE TABLE t (a INTEGER NOT NULL, b TEXT, c_text TEXT NOT NULL)")).toBe(
      'CREATE TABLE t (a BIGINT NOT NULL, b TEXT COLLATE "C", c_text TEXT COLLATE "C" NOT NULL)',
    );
  });
});
