import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openPostgresInventoryStore } from "../../collector/store/inventory/postgres.ts";
import { openSqliteInventoryStore } from "../../collector/store/inventory/sqlite.ts";
import type { InventoryStore } from "../../collector/store/inventory/types.ts";
import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import type { EntityRecord } from "../../src/inventory/model.ts";
import type { EntityCode } from "../../src/inventory/segment-types.ts";
import { createTestDatabase, migrateAll, type TestDatabase } from "../helpers/postgres.ts";

/** The inventory store's contract (inventory/types.ts), run on SQLite and on PostgreSQL alike. */
const dirs: string[] = [];
const opened: InventoryStore[] = [];
let pg: TestDatabase;
beforeAll(async () => {
  pg = await createTestDatabase();
  await migrateAll(pg.sql);
});
afterAll(() => pg.drop());
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  await pg.sql.unsafe("TRUNCATE inv_entity, inv_relationship");
});

/**
 * A place holding one inventory; each call opens another store on it. `shared`: several stores
 * (collectors) may use it at once, which only PostgreSQL allows (a data folder has one collector).
 */
const backends: { name: string; shared: boolean; place(): () => InventoryStore }[] = [
  {
    name: "SQLite",
    shared: false,
    place() {
      const d = mkdtempSync(join(tmpdir(), "outpost-istore-"));
      dirs.push(d);
      return () => {
        const s = openSqliteInventoryStore(join(d, "inventory.db"), { synchronous: "NORMAL" });
        opened.push(s);
        return s;
      };
    },
  },
  {
    name: "PostgreSQL",
    shared: true,
    place: () => () => {
      const s = openPostgresInventoryStore(pg.sql);
      opened.push(s);
      return s;
    },
  },
];

const P = (s: string) => CanonicalPath.parse(s);
const entity = (path: string, more: Partial<EntityRecord> = {}): EntityRecord => {
  const p = P(path);
  return { path: p, type: p.type as EntityCode, id: p.segments.at(-1)!.id, ...more };
};
const paths = (es: readonly EntityRecord[]) => es.map((e) => e.path.toString());

describe.each(backends)("$name inventory store", ({ place, shared }) => {
  it("commits a transaction whole, and rolls back everything of one that throws", async () => {
    const s = place()();
    await s.transaction(async (tx) => {
      await tx.insertEntity("t", entity("/t;t"));
      await tx.insertEntity("t", entity("/t;t/f;f1", { name: "Feed", properties: { os: "linux", n: 3 } }));
    });
    await expect(
      s.transaction(async (tx) => {
        await tx.insertEntity("t", entity("/t;t/f;f2"));
        await tx.updateEntity("t", entity("/t;t/f;f1", { name: "Changed" }));
        throw new Error("domain refused");
      }),
    ).rejects.toThrow("domain refused");
    const got = await s.read((r) => r.getEntities("t", [P("/t;t/f;f1"), P("/t;t/f;f2"), P("/t;t/f;f1")]));
    expect(got).toEqual([entity("/t;t/f;f1", { name: "Feed", properties: { os: "linux", n: 3 } })]);
  });

  it("undoes only a failed savepoint's writes, also after a failed statement, and goes on", async () => {
    const s = place()();
    const outcome = await s.transaction(async (tx) => {
      await tx.insertEntity("t", entity("/t;t"));
      const results: string[] = [];
      for (const id of ["a", "b", "a", "c"]) {
        try {
          await tx.savepoint(async () => {
            await tx.insertEntity("t", entity(`/t;t/f;${id}/r;child`));
            // The second "a" fails here, on the primary key, after its child was written.
            await tx.insertEntity("t", entity(`/t;t/f;${id}`));
          });
          results.push(`${id}:ok`);
        } catch {
          results.push(`${id}:failed`);
        }
      }
      // Nested: the inner failure is undone, the outer savepoint's own write kept.
      await tx.savepoint(async () => {
        await tx.insertEntity("t", entity("/t;t/f;outer"));
        await tx.savepoint(async () => {
          await tx.insertEntity("t", entity("/t;t/f;inner"));
          throw new Error("inner fails");
        }).catch(() => undefined);
      });
      return results;
    });
    expect(outcome).toEqual(["a:ok", "b:ok", "a:failed", "c:ok"]);
    const all = await s.read((r) => r.descendants("t", P("/t;t")));
    expect(paths(all)).toEqual(["/t;t/f;a", "/t;t/f;a/r;child", "/t;t/f;b", "/t;t/f;b/r;child", "/t;t/f;c", "/t;t/f;c/r;child", "/t;t/f;outer"]);
  });

  it("orders paths byte by byte: descendants are a range of the path, children sorted", async () => {
    const s = place()();
    const list = ["/t;t", "/t;t/f;a", "/t;t/f;a/r;Z", "/t;t/f;a/r;b", "/t;t/f;a/r;B", "/t;t/f;a/r;b/r;deep", "/t;t/f;a0", "/t;t/f;a.x", "/t;t/f;a-b"];
    await s.transaction(async (tx) => {
      for (const p of list) await tx.insertEntity("t", entity(p));
    });
    const below = await s.read((r) => r.descendants("t", P("/t;t/f;a")));
    // Upper case before lower case, as bytes compare (not as a locale would); siblings that
    // merely start with the same id ("a0", "a.x", "a-b") are not below "a".
    expect(paths(below)).toEqual(["/t;t/f;a/r;B", "/t;t/f;a/r;Z", "/t;t/f;a/r;b", "/t;t/f;a/r;b/r;deep"]);
    const kids = await s.read((r) => r.children("t", [P("/t;t")]));
    expect(paths(kids)).toEqual(["/t;t/f;a", "/t;t/f;a-b", "/t;t/f;a.x", "/t;t/f;a0"]);
  });

  it("keeps tenants apart: same paths in two tenants, reads and deletes scoped to one", async () => {
    const s = place()();
    for (const t of ["t1", "t2"]) {
      await s.transaction(async (tx) => {
        await tx.insertEntity(t, entity(`/t;${t}`));
        await tx.insertEntity(t, entity(`/t;${t}/f;shared`, { name: t }));
        await tx.insertRelationship(t, { id: `rel-${t}`, name: "isParentOf", source: P(`/t;${t}`), target: P(`/t;${t}/f;shared`) });
      });
    }
    expect(await s.read((r) => r.getEntity("t1", P("/t;t2/f;shared")))).toBeUndefined();
    expect(await s.read((r) => r.getRelationship("t1", "rel-t2"))).toBeUndefined();
    await s.transaction((tx) => tx.deleteTenant("t1"));
    expect(await s.read((r) => r.descendants("t1", P("/t;t1")))).toEqual([]);
    expect((await s.read((r) => r.getEntity("t2", P("/t;t2/f;shared"))))?.name).toBe("t2");
    expect((await s.read((r) => r.getRelationship("t2", "rel-t2")))?.name).toBe("isParentOf");
  });

  it("finds relationships by end, direction and name; deleting an entity takes its relationships", async () => {
    const s = place()();
    const [a, b, c] = [P("/t;t/f;a"), P("/t;t/f;b"), P("/t;t/f;c")];
    await s.transaction(async (tx) => {
      for (const p of [a, b, c]) await tx.insertEntity("t", entity(p.toString()));
      await tx.insertRelationship("t", { id: "ab", name: "isParentOf", source: a, target: b, properties: { w: 1 } });
      await tx.insertRelationship("t", { id: "ca", name: "defines", source: c, target: a });
      await tx.insertRelationship("t", { id: "bc", name: "isParentOf", source: b, target: c });
    });
    const ids = async (ends: CanonicalPath[], direction: "in" | "out" | "both", names?: string[]) =>
      (await s.read((r) => r.relationships("t", { ends, direction, ...(names ? { names } : {}) }))).map((x) => x.id).sort();
    expect(await ids([a], "out")).toEqual(["ab"]);
    expect(await ids([a], "in")).toEqual(["ca"]);
    expect(await ids([a], "both")).toEqual(["ab", "ca"]);
    expect(await ids([a, b], "both", ["isParentOf"])).toEqual(["ab", "bc"]);
    expect((await s.read((r) => r.findRelationship("t", a, "isParentOf", b)))?.properties).toEqual({ w: 1 });
    await s.transaction((tx) => tx.updateRelationship("t", { id: "ab", name: "isParentOf", source: a, target: b, properties: { w: 2 } }));
    expect((await s.read((r) => r.getRelationship("t", "ab")))?.properties).toEqual({ w: 2 });
    await s.transaction((tx) => tx.deleteEntities("t", [a]));
    expect(await ids([a, b, c], "both")).toEqual(["bc"]);
    await s.transaction((tx) => tx.deleteRelationships("t", ["bc"]));
    expect(await ids([b], "both")).toEqual([]);
  });

  it("stores hashes and finds entities by identity hash", async () => {
    const s = place()();
    await s.transaction(async (tx) => {
      await tx.insertEntity("t", entity("/t;t/rt;Server", { hashes: { identityHash: "h1", contentHash: "c1", syncHash: "s1" } }));
      await tx.insertEntity("t", entity("/t;t/rt;Disk"));
      await tx.setHashes("t", P("/t;t/rt;Disk"), { identityHash: "h2", contentHash: "c2", syncHash: "s2" });
    });
    const found = await s.read((r) => r.byIdentityHash("t", "rt", ["h2", "h1", "h3"]));
    expect(found.map((e) => [e.id, e.hashes?.syncHash]).sort()).toEqual([
      ["Disk", "s2"],
      ["Server", "s1"],
    ]);
    expect(await s.read((r) => r.byIdentityHash("other", "rt", ["h1"]))).toEqual([]);
  });

  it("runs transactions one at a time (with PostgreSQL, also those of two collectors on one database)", async () => {
    const open = place();
    const first = open();
    const stores = [first, shared ? open() : first];
    await stores[0]!.transaction((tx) => tx.insertEntity("t", entity("/t;t")));
    // Each transaction reads how many feeds there are, waits, then adds the next one: interleaved,
    // two would read the same count and collide on the same path.
    const add = (s: InventoryStore) =>
      s.transaction(async (tx) => {
        const n = (await tx.children("t", [P("/t;t")])).length;
        await Bun.sleep(5);
        await tx.insertEntity("t", entity(`/t;t/f;feed-${String(n).padStart(2, "0")}`));
      });
    await Promise.all(Array.from({ length: 12 }, (_, i) => add(stores[i % 2]!)));
    const feeds = await stores[1]!.read((r) => r.children("t", [P("/t;t")]));
    expect(paths(feeds)).toEqual(Array.from({ length: 12 }, (_, i) => `/t;t/f;feed-${String(i).padStart(2, "0")}`));
  });
});
