import { Database } from "bun:sqlite";
import { describe, expect, it } from "vitest";
import { baseline, type DatabaseSchema, migrate, SchemaTooNewError, schemaVersion } from "../../src/sqlite/migrations.ts";

const v1 = baseline("readings", "CREATE TABLE IF NOT EXISTS readings (id INTEGER PRIMARY KEY, celsius REAL NOT NULL)");
/** Version 2 changes the data, as a new chunk format would: Celsius becomes Kelvin. */
const v2 = {
  version: 2,
  description: "kelvin",
  up(db: Database) {
    db.exec("ALTER TABLE readings ADD COLUMN kelvin REAL");
    db.exec("UPDATE readings SET kelvin = celsius + 273.15");
  },
};
const v3 = { version: 3, description: "index", up: (db: Database) => db.exec("CREATE INDEX readings_kelvin ON readings (kelvin)") };

describe("schema migrations", () => {
  it("a new database gets every step; an old one only those it lacks, in place, its data kept", () => {
    const fresh = new Database(":memory:");
    expect(migrate(fresh, { name: "t.db", migrations: [v1, v2, v3] })).toMatchObject({ from: 0, to: 3 });
    expect(schemaVersion(fresh)).toBe(3);

    const old = new Database(":memory:");
    migrate(old, { name: "t.db", migrations: [v1] });
    old.exec("INSERT INTO readings (celsius) VALUES (20), (-273.15)");
    const steps: number[] = [];
    const r = migrate(old, { name: "t.db", migrations: [v1, v2, v3] }, (m) => steps.push(m.version));
    expect(r.from).toBe(1);
    expect(steps).toEqual([2, 3]);
    expect(old.query("SELECT kelvin FROM readings ORDER BY id").all()).toEqual([{ kelvin: 293.15 }, { kelvin: 0 }]);
    // Opening it again runs nothing.
    expect(migrate(old, { name: "t.db", migrations: [v1, v2, v3] }).applied).toEqual([]);
  });

  it("adopts a database made before versions were recorded (user_version 0, tables present)", () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE readings (id INTEGER PRIMARY KEY, celsius REAL NOT NULL); INSERT INTO readings (celsius) VALUES (1)");
    migrate(db, { name: "t.db", migrations: [v1, v2] });
    expect(schemaVersion(db)).toBe(2);
    expect(db.query("SELECT celsius, kelvin FROM readings").get()).toEqual({ celsius: 1, kelvin: 274.15 });
  });

  it("a failing step changes nothing of itself and leaves the version before it; the next open resumes", () => {
    const db = new Database(":memory:");
    migrate(db, { name: "t.db", migrations: [v1] });
    db.exec("INSERT INTO readings (celsius) VALUES (5)");
    const broken = { version: 3, description: "broken", up: (d: Database) => d.exec("CREATE INDEX x ON nowhere (y)") };
    expect(() => migrate(db, { name: "t.db", migrations: [v1, v2, broken] })).toThrow(/nowhere/);
    expect(schemaVersion(db)).toBe(2);
    expect(db.query("SELECT kelvin FROM readings").get()).toEqual({ kelvin: 278.15 });
    migrate(db, { name: "t.db", migrations: [v1, v2, v3] });
    expect(schemaVersion(db)).toBe(3);
  });

  it("refuses a database of a newer version in one line, and a list of steps with a gap", () => {
    const db = new Database(":memory:");
    db.exec("PRAGMA user_version = 7");
    const schema: DatabaseSchema = { name: "metrics.db", migrations: [v1, v2] };
    expect(() => migrate(db, schema)).toThrow(SchemaTooNewError);
    expect(() => migrate(db, schema)).toThrow("metrics.db has schema version 7, newer than this program knows (2)");
    expect(schemaVersion(db)).toBe(7);
    expect(() => migrate(new Database(":memory:"), { name: "t.db", migrations: [v1, v3] })).toThrow(/expected 2/);
  });
});

describe("a database newer than the program (an agent's upgrade rolled back)", () => {
  const add = { version: 2, description: "notes", additive: true, up: (db: Database) => db.exec("CREATE TABLE notes (text TEXT)") };
  const older: DatabaseSchema = { name: "buffer.db", floor: true, migrations: [v1, add] };

  it("is opened as it is when every step since the program's is additive", () => {
    const db = new Database(":memory:");
    const col = { version: 3, description: "unit", additive: true, up: (d: Database) => d.exec("ALTER TABLE readings ADD COLUMN unit TEXT DEFAULT 'C'") };
    migrate(db, { ...older, migrations: [v1, add, col] });
    db.exec("INSERT INTO readings (celsius) VALUES (21)");
    expect(migrate(db, older)).toEqual({ from: 3, to: 3, applied: [], newer: true });
    // The older program's statements work on it, and leave it at the newer version.
    db.exec("INSERT INTO readings (celsius) VALUES (22)");
    expect(db.query("SELECT celsius FROM readings ORDER BY id").all()).toEqual([{ celsius: 21 }, { celsius: 22 }]);
    expect(schemaVersion(db)).toBe(3);
    // And the newer program opens it again with nothing to do.
    expect(migrate(db, { ...older, migrations: [v1, add, col] }).applied).toEqual([]);
  });

  it("is refused when a step since is not additive, saying which version it needs", () => {
    const db = new Database(":memory:");
    migrate(db, { ...older, migrations: [v1, add, { ...v2, version: 3 }] });
    expect(() => migrate(db, older)).toThrow("buffer.db has schema version 3, newer than this program knows (2; it needs one that knows 3)");
  });

  it("gets its floor when it was made before floors were kept", () => {
    const db = new Database(":memory:");
    migrate(db, { name: "buffer.db", migrations: [v1, add] });
    migrate(db, older);
    expect(db.query("SELECT version FROM schema_floor").all()).toEqual([{ version: 1 }]);
    const col = { version: 3, description: "unit", additive: true, up: (d: Database) => d.exec("ALTER TABLE readings ADD COLUMN unit TEXT") };
    migrate(db, { ...older, migrations: [v1, add, col] });
    expect(migrate(db, { ...older, migrations: [v1] }).newer).toBe(true);
  });
});
