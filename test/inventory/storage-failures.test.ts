import { afterEach, describe, expect, it } from "vitest";
import { openSqliteInventoryStore } from "../../collector/store/inventory/sqlite.ts";
import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { createLogger } from "../../src/log/logger.ts";
import { storageFailure } from "../../src/sqlite/storage-failure.ts";
import { StorageHealth } from "../../src/sqlite/storage-health.ts";
import { SmallDisk } from "../helpers/full-disk.ts";
import { waitFor } from "../helpers/ports.ts";
import { join } from "node:path";
import { openPostgresInventoryStore } from "../../collector/store/inventory/postgres.ts";
import { createTestDatabase, migrateAll } from "../helpers/postgres.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("inventory store on a full disk", () => {
  it("fails a transaction with the storage error itself (not a failed rollback), keeps what was committed, and takes writes again", async () => {
    const disk = new SmallDisk(8);
    cleanups.push(() => disk.dispose());
    const health = new StorageHealth({ log: createLogger("silent"), probeIntervalMs: 100 });
    cleanups.push(() => health.close());
    const store = openSqliteInventoryStore(join(disk.dir, "inventory.db"), { synchronous: "NORMAL", health });
    cleanups.push(() => store.close());
    const tenant = CanonicalPath.tenant("t");
    const feed = (i: number, size: number) => ({ path: CanonicalPath.parse(`/t;t/f;feed-${i}`), type: "f" as const, id: `feed-${i}`, properties: { pad: "x".repeat(size) } });
    await store.transaction(async (tx) => tx.insertEntity("t", { path: tenant, type: "t", id: "t" }));
    disk.fill();
    let failure: unknown;
    let committed = 0;
    for (const size of [256 * 1024, 16 * 1024, 512]) {
      for (let i = 0; i < 400 && failure === undefined; i++) {
        try {
          await store.transaction(async (tx) => tx.insertEntity("t", feed(committed, size)));
          committed++;
        } catch (e) {
          failure = e;
        }
      }
      if (size !== 512) failure = undefined;
    }
    expect(storageFailure(failure)).toBe("full");
    expect(health.failing).toBe("full");
    // Reads go on, and see exactly what was committed.
    const children = await store.read((r) => r.children("t", [tenant]));
    expect(children).toHaveLength(committed);
    disk.free();
    await waitFor("storage health to clear", () => (health.failing === undefined ? true : undefined), 5000);
    await store.transaction(async (tx) => tx.insertEntity("t", feed(committed, 10)));
    expect(await store.read((r) => r.children("t", [tenant]))).toHaveLength(committed + 1);
  });
});

describe("inventory store on PostgreSQL out of disk", () => {
  it("fails a transaction whole with a 'full' storage failure, keeps what was committed, and takes writes again", async () => {
    const db = await createTestDatabase();
    cleanups.push(() => db.drop());
    await migrateAll(db.sql);
    const health = new StorageHealth({ log: createLogger("silent"), probeIntervalMs: 100 });
    cleanups.push(() => health.close());
    const store = openPostgresInventoryStore(db.sql, { health });
    cleanups.push(() => store.close());
    const tenant = CanonicalPath.tenant("t");
    const feed = (i: number) => ({ path: CanonicalPath.parse(`/t;t/f;feed-${i}`), type: "f" as const, id: `feed-${i}` });
    await store.transaction(async (tx) => {
      await tx.insertEntity("t", { path: tenant, type: "t", id: "t" });
      await tx.insertEntity("t", feed(0));
    });
    // The server's disk is full: PostgreSQL answers disk_full (SQLSTATE 53100) to the relationship insert.
    await db.sql.unsafe(`CREATE FUNCTION test_disk_full() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$`);
    await db.sql.unsafe("CREATE TRIGGER test_disk_full BEFORE INSERT ON inv_relationship FOR EACH ROW EXECUTE FUNCTION test_disk_full()");
    const failure = await store
      .transaction(async (tx) => {
        await tx.insertEntity("t", feed(1));
        await tx.insertRelationship("t", { id: "r1", name: "isParentOf", source: tenant, target: feed(1).path });
      })
      .catch((e) => e);
    expect(storageFailure(failure)).toBe("full");
    expect(health.failing).toBe("full");
    expect((await store.read((r) => r.children("t", [tenant]))).map((e) => e.id)).toEqual(["feed-0"]);
    await db.sql.unsafe("DROP TRIGGER test_disk_full ON inv_relationship");
    await waitFor("storage health to clear", () => (health.failing === undefined ? true : undefined), 5000);
    await store.transaction((tx) => tx.insertEntity("t", feed(1)));
    expect(await store.read((r) => r.children("t", [tenant]))).toHaveLength(2);
  });
});
