import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AnyJson, expectStatus, type InventoryClient, inventoryClient } from "./support.ts";

let col: TestCollector;
let api: InventoryClient;

beforeAll(async () => {
  col = await startTestCollector();
  api = inventoryClient(col, "ent");
});
afterAll(async () => {
  await col.close();
});

async function created(res: Promise<Response>): Promise<AnyJson> {
  return body(await expectStatus(await res, 201));
}

describe("inventory interface conventions", () => {
  it("requires the tenant header everywhere except the websocket", async () => {
    for (const path of ["/", "/entity/e;x", "/traversal/type=e", "/bulk", "/deprecated/tenant"]) {
      const res = await col.req(`/svc/inventory${path}`, { tenant: null });
      expect(res.status, path).toBe(400);
      expect((await body(res)).errorMsg).toMatch(/Tenant/);
    }
  });

  it("lists its endpoints at the root, also under /hawkular/inventory", async () => {
    for (const root of ["/svc/inventory", "/hawkular/inventory"]) {
      const b = await body(await expectStatus(await col.req(`${root}/`, { tenant: "ent" }), 200));
      const uris = b.endpoints.map((e: AnyJson) => e.uri);
      expect(uris).toEqual(expect.arrayContaining(["/entity/{path}", "/traversal/{traversal}", "/bulk", "/ws/events"]));
    }
  });

  it("answers 405 for unsupported methods and 400 for bodies that are not JSON", async () => {
    expect((await col.req("/svc/inventory/entity/e;x", { method: "PATCH", tenant: "ent" })).status).toBe(405);
    expect((await col.req("/svc/inventory/traversal/type=e", { method: "POST", tenant: "ent", json: {} })).status).toBe(405);
    const notJson = await col.req("/svc/inventory/entity/environment", {
      method: "POST",
      tenant: "ent",
      body: "{nope",
      headers: { "Content-Type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect((await body(notJson)).errorMsg).toMatch(/JSON/);
    const empty = await col.req("/svc/inventory/entity/environment", { method: "POST", tenant: "ent", body: "" });
    expect(empty.status).toBe(400);
  });
});

describe("entities of every type", () => {
  it("creates, reads, updates and deletes each type with Location headers", async () => {
    const cases: { parent: string; type: string; body: AnyJson; path: string; update: AnyJson; check: (e: AnyJson) => void }[] = [
      { parent: "", type: "environment", body: { id: "env", name: "Env" }, path: "e;env", update: { name: "E2" }, check: (e) => expect(e.name).toBe("E2") },
      { parent: "", type: "feed", body: { id: "feed", properties: { os: "linux" } }, path: "f;feed", update: { properties: { os: "bsd" } }, check: (e) => expect(e.properties).toEqual({ os: "bsd" }) },
      { parent: "", type: "resourceType", body: { id: "Server" }, path: "rt;Server", update: { name: "Srv" }, check: (e) => expect(e.name).toBe("Srv") },
      { parent: "", type: "metricType", body: { id: "Heap", type: "GAUGE", unit: "BYTES", collectionInterval: 60 }, path: "mt;Heap", update: { unit: "MEGABYTES", collectionInterval: 30 }, check: (e) => expect([e.unit, e.collectionInterval, e.type]).toEqual(["MEGABYTES", 30, "GAUGE"]) },
      { parent: "f;feed", type: "resourceType", body: { id: "Disk" }, path: "f;feed/rt;Disk", update: { properties: { a: 1 } }, check: (e) => expect(e.properties).toEqual({ a: 1 }) },
      { parent: "f;feed", type: "metricType", body: { id: "Used", type: "counter", unit: "PERCENTAGE", collectionInterval: 10 }, path: "f;feed/mt;Used", update: { name: "used" }, check: (e) => expect([e.name, e.type]).toEqual(["used", "COUNTER"]) },
      { parent: "rt;Server", type: "operationType", body: { id: "restart" }, path: "rt;Server/ot;restart", update: { name: "Restart" }, check: (e) => expect(e.name).toBe("Restart") },
      { parent: "e;env", type: "resource", body: { id: "srv1", resourceTypePath: "/rt;Server" }, path: "e;env/r;srv1", update: { properties: { ip: "10.0.0.1" } }, check: (e) => expect([e.properties.ip, e.type.id]).toEqual(["10.0.0.1", "Server"]) },
      { parent: "f;feed", type: "resource", body: { id: "sda", resourceTypePath: "rt;Disk" }, path: "f;feed/r;sda", update: { name: "disk" }, check: (e) => expect(e.name).toBe("disk") },
      { parent: "f;feed/r;sda", type: "resource", body: { id: "sda1", resourceTypePath: "../rt;Disk" }, path: "f;feed/r;sda/r;sda1", update: { name: "part" }, check: (e) => expect(e.name).toBe("part") },
      { parent: "e;env", type: "metric", body: { id: "heap", metricTypePath: "/mt;Heap", collectionInterval: 60 }, path: "e;env/m;heap", update: { collectionInterval: 5 }, check: (e) => expect([e.collectionInterval, e.type.id]).toEqual([5, "Heap"]) },
      { parent: "f;feed/r;sda", type: "metric", body: { id: "used", metricTypePath: "../mt;Used", collectionInterval: 10 }, path: "f;feed/r;sda/m;used", update: { name: "u" }, check: (e) => expect(e.name).toBe("u") },
      { parent: "f;feed/r;sda", type: "data", body: { role: "configuration", value: { size: 10 } }, path: "f;feed/r;sda/d;configuration", update: { value: { size: 20 } }, check: (e) => expect(e.value).toEqual({ size: 20 }) },
      { parent: "rt;Server", type: "dataEntity", body: { role: "configurationSchema", value: { type: "object" } }, path: "rt;Server/d;configurationSchema", update: { value: [1, 2] }, check: (e) => expect(e.value).toEqual([1, 2]) },
      { parent: "rt;Server/ot;restart", type: "data", body: { role: "returnType", value: "bool" }, path: "rt;Server/ot;restart/d;returnType", update: { value: "int" }, check: (e) => expect(e.value).toBe("int") },
    ];
    for (const k of cases) {
      const url = k.parent ? `/entity/${k.parent}/${k.type}` : `/entity/${k.type}`;
      const res = await expectStatus(await api.post(url, k.body), 201);
      expect(res.headers.get("Location"), k.path).toBe(`${col.url}/svc/inventory/entity/${k.path}`);
      const made = await body(res);
      expect(made.path).toBe(`/t;ent/${k.path}`);
      expect(await body(await expectStatus(await api.get(`/entity/${k.path}`), 200))).toEqual(made);
      await expectStatus(await api.put(`/entity/${k.path}`, k.update), 204);
      k.check(await body(await expectStatus(await api.get(`/entity/${k.path}`), 200)));
    }
    // Syncable entities carry hashes, environments do not.
    const feed = await body(await api.get("/entity/f;feed"));
    expect(feed.identityHash).toMatch(/^[0-9a-f]+$/);
    expect((await body(await api.get("/entity/e;env"))).identityHash).toBeUndefined();
    for (const k of [...cases].reverse()) {
      await expectStatus(await api.del(`/entity/${k.path}`), 204);
      expect((await api.get(`/entity/${k.path}`)).status).toBe(404);
    }
  });

  it("creates an array of blueprints all or nothing", async () => {
    await expectStatus(await api.post("/entity/environment", { id: "arr0" }), 201);
    const many = await created(api.post("/entity/environment", [{ id: "arr1" }, { id: "arr2" }]));
    expect(many.map((e: AnyJson) => e.id)).toEqual(["arr1", "arr2"]);
    const dup = await api.post("/entity/environment", [{ id: "arr3" }, { id: "arr0" }]);
    expect(dup.status).toBe(409);
    expect((await api.get("/entity/e;arr3")).status).toBe(404);
  });

  it("creates a metadata pack of global types and refuses to delete its members", async () => {
    await expectStatus(await api.post("/entity/resourceType", { id: "PackedRT" }), 201);
    await expectStatus(await api.post("/entity/metricType", { id: "PackedMT", type: "GAUGE", unit: "NONE", collectionInterval: 1 }), 201);
    const pack = await created(api.post("/entity/metadataPack", { members: ["/rt;PackedRT", "/mt;PackedMT"], name: "p" }));
    expect(pack.path).toMatch(/^\/t;ent\/mp;[0-9a-f]+$/);
    const del = await api.del("/entity/rt;PackedRT");
    expect(del.status).toBe(400);
    expect((await body(del)).errorMsg).toMatch(/metadata pack/);
    expect((await api.put("/entity/mt;PackedMT", { unit: "BYTES" })).status).toBe(400);
    await expectStatus(await api.del(`/entity/${pack.path.slice("/t;ent/".length)}`), 204);
    await expectStatus(await api.del("/entity/rt;PackedRT"), 204);
  });

  it("answers 409 for duplicates, 404 for missing entities and 400 for invalid blueprints", async () => {
    await expectStatus(await api.post("/entity/feed", { id: "dupfeed" }), 201);
    expect((await api.post("/entity/feed", { id: "dupfeed" })).status).toBe(409);
    expect((await api.get("/entity/f;missing")).status).toBe(404);
    expect((await api.put("/entity/f;missing", { name: "x" })).status).toBe(404);
    expect((await api.del("/entity/f;missing")).status).toBe(404);
    expect((await api.post("/entity/f;missing/resource", { id: "r", resourceTypePath: "rt;x" })).status).toBe(404);
    expect((await api.post("/entity/f;dupfeed/resource", { id: "r", resourceTypePath: "rt;nope" })).status).toBe(404);
    const invalid = [
      api.post("/entity/f;dupfeed/resource", { id: "r" }),
      api.post("/entity/f;dupfeed/metricType", { id: "m", type: "GAUGE", unit: "FURLONGS", collectionInterval: 1 }),
      api.post("/entity/f;dupfeed/metricType", { id: "m", type: "SPEED", unit: "NONE", collectionInterval: 1 }),
      api.post("/entity/feed", { id: "" }),
      api.post("/entity/feed", { name: "no id" }),
      api.post("/entity/feed", 42),
      api.post("/entity/feed", []),
      api.post("/entity/f;dupfeed/unicorn", { id: "u" }),
      api.post("/entity/e;x/feed", { id: "f" }),
    ];
    for (const res of await Promise.all(invalid)) {
      expect(res.status).toBe(400);
      expect(typeof (await body(res)).errorMsg).toBe("string");
    }
    await expectStatus(await api.post("/entity/f;dupfeed/resourceType", { id: "t" }), 201);
    await expectStatus(await api.post("/entity/f;dupfeed/resource", { id: "r", resourceTypePath: "rt;t" }), 201);
    const badRole = await api.post("/entity/f;dupfeed/r;r/data", { role: "returnType", value: 1 });
    expect(badRole.status).toBe(400);
  });
});

describe("relationships", () => {
  beforeAll(async () => {
    await expectStatus(await api.post("/entity/environment", { id: "rel" }), 201);
    await expectStatus(await api.post("/entity/resourceType", { id: "T" }), 201);
    for (const id of ["a", "b", "c"]) {
      await expectStatus(await api.post("/entity/e;rel/resource", { id, resourceTypePath: "/rt;T" }), 201);
    }
  });

  it("creates, reads, updates and deletes a relationship", async () => {
    const res = await expectStatus(
      await api.post("/entity/e;rel/r;a/relationship", { name: "uses", otherEnd: "/e;rel/r;b", direction: "outgoing", properties: { w: 1 } }),
      201,
    );
    const rel = await body(res);
    expect(rel).toMatchObject({ name: "uses", source: "/t;ent/e;rel/r;a", target: "/t;ent/e;rel/r;b", properties: { w: 1 } });
    expect(res.headers.get("Location")).toBe(`${col.url}/svc/inventory/entity/rl;${rel.id}`);
    expect(await body(await expectStatus(await api.get(`/entity/rl;${rel.id}`), 200))).toEqual(rel);
    await expectStatus(await api.put(`/entity/rl;${rel.id}`, { properties: { w: 2 } }), 204);
    expect((await body(await api.get(`/entity/rl;${rel.id}`))).properties).toEqual({ w: 2 });
    expect((await api.post("/entity/e;rel/r;a/relationship", { name: "uses", otherEnd: "../r;b", direction: "outgoing" })).status).toBe(409);
    await expectStatus(await api.del(`/entity/rl;${rel.id}`), 204);
    expect((await api.get(`/entity/rl;${rel.id}`)).status).toBe(404);
  });

  it("creates incoming and both-way relationships", async () => {
    const inc = await created(api.post("/entity/e;rel/r;a/relationship", { name: "feeds", otherEnd: "../r;c", direction: "incoming" }));
    expect([inc.source, inc.target]).toEqual(["/t;ent/e;rel/r;c", "/t;ent/e;rel/r;a"]);
    const both = await created(api.post("/entity/e;rel/r;b/relationship", { name: "peer", otherEnd: "../r;c", direction: "both" }));
    expect(both.map((r: AnyJson) => `${r.source}>${r.target}`).sort()).toEqual(["/t;ent/e;rel/r;b>/t;ent/e;rel/r;c", "/t;ent/e;rel/r;c>/t;ent/e;rel/r;b"]);
  });

  it("enforces the rules of well-known relationships", async () => {
    const contains = await api.post("/entity/e;rel/r;a/relationship", { name: "contains", otherEnd: "../r;b", direction: "outgoing" });
    expect(contains.status).toBe(400);
    await created(api.post("/entity/e;rel/r;a/relationship", { name: "isParentOf", otherEnd: "../r;b", direction: "outgoing" }));
    await created(api.post("/entity/e;rel/r;b/relationship", { name: "isParentOf", otherEnd: "../r;c", direction: "outgoing" }));
    const loop = await api.post("/entity/e;rel/r;c/relationship", { name: "isParentOf", otherEnd: "../r;a", direction: "outgoing" });
    expect(loop.status).toBe(400);
    expect((await body(loop)).errorMsg).toMatch(/loop/);
    const self = await api.post("/entity/e;rel/r;a/relationship", { name: "isParentOf", otherEnd: "/e;rel/r;a", direction: "outgoing" });
    expect(self.status).toBe(400);
    expect((await api.post("/entity/e;rel/r;a/relationship", { name: "x", otherEnd: "../r;zzz", direction: "outgoing" })).status).toBe(404);
    expect((await api.post("/entity/e;rel/r;a/relationship", { name: "x", direction: "outgoing" })).status).toBe(400);
    // The inventory's own relationships cannot be removed on their own.
    const all = await body(await api.get("/traversal/e;rel/relationships"));
    const own = all.find((r: AnyJson) => r.name === "contains");
    expect((await api.del(`/entity/rl;${own.id}`)).status).toBe(400);
  });

  it("deletes recursively over contains and keeps entities that are only associated", async () => {
    await expectStatus(await api.post("/entity/feed", { id: "gone" }), 201);
    await expectStatus(await api.post("/entity/f;gone/resourceType", { id: "T" }), 201);
    await expectStatus(await api.post("/entity/f;gone/resource", { id: "p", resourceTypePath: "rt;T" }), 201);
    await expectStatus(await api.post("/entity/f;gone/r;p/resource", { id: "q", resourceTypePath: "../rt;T" }), 201);
    const link = await created(api.post("/entity/f;gone/r;p/relationship", { name: "hosts", otherEnd: "/e;rel/r;a", direction: "outgoing" }));
    await expectStatus(await api.del("/entity/f;gone"), 204);
    for (const p of ["f;gone", "f;gone/rt;T", "f;gone/r;p", "f;gone/r;p/r;q", `rl;${link.id}`]) {
      expect((await api.get(`/entity/${p}`)).status, p).toBe(404);
    }
    await expectStatus(await api.get("/entity/e;rel/r;a"), 200);
  });
});

describe("tenants", () => {
  it("never see each other's entities or relationships", async () => {
    const a = inventoryClient(col, "tenant-a");
    const b = inventoryClient(col, "tenant-b");
    await expectStatus(await a.post("/entity/environment", { id: "shared-name" }), 201);
    await expectStatus(await a.post("/entity/e;shared-name/relationship", { name: "self-ish", otherEnd: "/t;tenant-a", direction: "incoming" }), 201);
    const rels = await body(await a.get("/traversal/e;shared-name/relationships;in"));
    const rel = rels.find((r: AnyJson) => r.name === "self-ish");
    expect((await b.get("/entity/e;shared-name")).status).toBe(404);
    expect((await b.get(`/entity/rl;${rel.id}`)).status).toBe(404);
    expect((await b.del(`/entity/rl;${rel.id}`)).status).toBe(404);
    const list = await b.get("/traversal/type=e");
    expect(await body(list)).toEqual([]);
    // The same id in tenant b is a different entity.
    await expectStatus(await b.post("/entity/environment", { id: "shared-name" }), 201);
    expect((await body(await b.get("/entity/e;shared-name"))).path).toBe("/t;tenant-b/e;shared-name");
  });
});
