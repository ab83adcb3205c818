import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTraversal } from "../../src/inventory/traversal/parse.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AnyJson, expectStatus, type InventoryClient, inventoryClient, paths } from "./support.ts";

let col: TestCollector;
let api: InventoryClient;
let usesId: string;

const T = "/t;trav";
const enc = encodeURIComponent;

/** Paths of the entities (or ids of relationships) a traversal returns, sorted. */
async function trav(path: string): Promise<string[]> {
  const list = await body(await expectStatus(await api.get(`/traversal/${path}`), 200));
  return list.every((x: AnyJson) => x.path) ? paths(list) : list.map((r: AnyJson) => r.id).sort();
}

async function post(path: string, json: unknown) {
  await expectStatus(await api.post(path, json), 201);
}

beforeAll(async () => {
  col = await startTestCollector();
  api = inventoryClient(col, "trav");
  await post("/entity/environment", [{ id: "prod", properties: { region: "eu" } }, { id: "dev" }]);
  await post("/entity/resourceType", { id: "Server" });
  await post("/entity/metricType", { id: "Heap", type: "GAUGE", unit: "BYTES", collectionInterval: 60 });
  for (const feed of ["h1", "h2"]) {
    await post("/entity/feed", { id: feed });
    await post(`/entity/f;${feed}/resourceType`, { id: "Disk" });
    await post(`/entity/f;${feed}/metricType`, { id: "Used", type: "GAUGE", unit: "PERCENTAGE", collectionInterval: 10 });
  }
  await post("/entity/f;h1/resource", [
    { id: "sda", resourceTypePath: "rt;Disk", properties: { kind: "ssd", size: "10" } },
    { id: "sdb", resourceTypePath: "rt;Disk", properties: { kind: "hdd" } },
  ]);
  await post("/entity/f;h1/r;sda/resource", { id: "sda1", name: "part1", resourceTypePath: "../rt;Disk" });
  await post("/entity/f;h1/r;sda/metric", { id: "used", metricTypePath: "../mt;Used", collectionInterval: 10 });
  await post("/entity/e;prod/resource", [
    { id: "web", name: "Web", resourceTypePath: "/rt;Server", properties: { region: "eu" } },
    { id: "db", resourceTypePath: "/rt;Server", properties: { region: "us" } },
  ]);
  const uses = await body(
    await expectStatus(
      await api.post("/entity/e;prod/r;web/relationship", { name: "uses", otherEnd: "../r;db", direction: "outgoing", properties: { weight: "3" } }),
      201,
    ),
  );
  usesId = uses.id;
  await post("/entity/e;prod/relationship", { name: "incorporates", otherEnd: "/f;h1", direction: "outgoing" });
});
afterAll(async () => {
  await col.close();
});

describe("traversal filters", () => {
  it("type accepts codes and names; repeated types are alternatives", async () => {
    expect(await trav("type=e")).toEqual([`${T}/e;dev`, `${T}/e;prod`]);
    expect(await trav("type=environment;type=f")).toEqual([`${T}/e;dev`, `${T}/e;prod`, `${T}/f;h1`, `${T}/f;h2`]);
    expect(await trav("type=resourceType")).toEqual([`${T}/rt;Server`]);
    expect(await trav("f;h1/type=ResourceType")).toEqual([`${T}/f;h1/rt;Disk`]);
  });

  it("id and name, with alternatives", async () => {
    expect(await trav("f;h1/type=r;id=sda;id=sdb")).toEqual([`${T}/f;h1/r;sda`, `${T}/f;h1/r;sdb`]);
    expect(await trav("f;h1/id=sdb")).toEqual([`${T}/f;h1/r;sdb`]);
    expect(await trav("f;h1/r;sda/type=r;name=part1")).toEqual([`${T}/f;h1/r;sda/r;sda1`]);
    expect(await trav("e;prod/name=Web;name=nothing")).toEqual([`${T}/e;prod/r;web`]);
  });

  it("cp takes a percent-encoded canonical path, with or without tenant", async () => {
    expect(await trav(`f;h1/type=r;cp=${enc(`${T}/f;h1/r;sda`)}`)).toEqual([`${T}/f;h1/r;sda`]);
    expect(await trav(`f;h1/cp=${enc("/f;h1/r;sdb")};cp=${enc("/f;h1/r;sda")}`)).toEqual([`${T}/f;h1/r;sda`, `${T}/f;h1/r;sdb`]);
  });

  it("propertyName alone, with values (alternatives), and several names together", async () => {
    expect(await trav("f;h1/type=r;propertyName=kind")).toEqual([`${T}/f;h1/r;sda`, `${T}/f;h1/r;sdb`]);
    expect(await trav("f;h1/type=r;propertyName=kind;propertyValue=ssd")).toEqual([`${T}/f;h1/r;sda`]);
    expect(await trav("f;h1/propertyName=kind;propertyValue=ssd;propertyName=kind;propertyValue=hdd")).toEqual([
      `${T}/f;h1/r;sda`,
      `${T}/f;h1/r;sdb`,
    ]);
    expect(await trav("f;h1/propertyName=kind;propertyValue=ssd;propertyName=size;propertyValue=10")).toEqual([`${T}/f;h1/r;sda`]);
    expect(await trav("f;h1/propertyName=kind;propertyValue=hdd;propertyName=size")).toEqual([]);
    expect((await api.get("/traversal/f;h1/propertyValue=ssd")).status).toBe(400);
    // Repeated values after one name are alternatives (the spec's traversal table).
    expect(await trav("f;h1/propertyName=kind;propertyValue=ssd;propertyValue=hdd")).toEqual([`${T}/f;h1/r;sda`, `${T}/f;h1/r;sdb`]);
    expect(await trav("f;h1/propertyName=kind;propertyValue=ssd;propertyValue=nvme;propertyName=size;propertyValue=10")).toEqual([`${T}/f;h1/r;sda`]);
    expect((await api.get("/traversal/f;h1/propertyValue=ssd;propertyName=kind")).status).toBe(400);
  });

  it("relatedBy with relatedTo or relatedWith, and definedBy", async () => {
    expect(await trav(`e;prod/type=r;relatedBy=uses;relatedTo=${enc("/e;prod/r;db")}`)).toEqual([`${T}/e;prod/r;web`]);
    expect(await trav(`e;prod/type=r;relatedBy=uses;relatedWith=${enc(`${T}/e;prod/r;web`)}`)).toEqual([`${T}/e;prod/r;db`]);
    expect(await trav(`f;h1/type=r;definedBy=${enc("/f;h1/rt;Disk")}`)).toEqual([`${T}/f;h1/r;sda`, `${T}/f;h1/r;sdb`]);
    expect(await trav(`type=f;relatedBy=incorporates;relatedWith=${enc("/e;prod")}`)).toEqual([`${T}/f;h1`]);
    expect((await api.get("/traversal/e;prod/relatedBy=uses")).status).toBe(400);
  });
});

describe("traversal progressions", () => {
  it("moves over contains between consecutive entity segments, from the tenant or t;<tenant>", async () => {
    expect(await trav("e;prod/r;web")).toEqual([`${T}/e;prod/r;web`]);
    expect(await trav("f;h1/r;sda/r;sda1")).toEqual([`${T}/f;h1/r;sda/r;sda1`]);
    expect(await trav("f;h1/r;sda/type=m")).toEqual([`${T}/f;h1/r;sda/m;used`]);
    expect(await trav("t;trav/e;prod")).toEqual([`${T}/e;prod`]);
    expect(await trav("t;trav")).toEqual([T]);
    expect(await trav("t;someone-else/e;prod")).toEqual([]);
  });

  it("follows named relationships out (default) or in, with relationship filters", async () => {
    expect(await trav("e;prod/r;web/rl;uses")).toEqual([`${T}/e;prod/r;db`]);
    expect(await trav("e;prod/r;web/rl;uses;out")).toEqual([`${T}/e;prod/r;db`]);
    expect(await trav("e;prod/r;db/rl;uses;in")).toEqual([`${T}/e;prod/r;web`]);
    expect(await trav("e;prod/r;web/rl;uses;propertyName=weight;propertyValue=3")).toEqual([`${T}/e;prod/r;db`]);
    expect(await trav("e;prod/r;web/rl;uses;propertyName=weight;propertyValue=4")).toEqual([]);
    expect(await trav("e;prod/r;web/rl;uses;propertyName=weight")).toEqual([`${T}/e;prod/r;db`]);
    expect(await trav(`e;prod/r;web/rl;uses;id=${usesId}`)).toEqual([`${T}/e;prod/r;db`]);
    expect(await trav("e;prod/r;web/rl;uses;id=other")).toEqual([]);
    expect(await trav("e;prod/r;web/rl;uses;targetType=resource;sourceType=r")).toEqual([`${T}/e;prod/r;db`]);
    expect(await trav("e;prod/r;web/rl;uses;targetType=feed")).toEqual([]);
    expect(await trav("e;prod/r;web/rl;uses;name=uses")).toEqual([`${T}/e;prod/r;db`]);
    expect(await trav("rt;Server/rl;defines/name=Web")).toEqual([`${T}/e;prod/r;web`]);
    expect(await trav("e;prod/rl;incorporates/type=f")).toEqual([`${T}/f;h1`]);
    expect(await trav("e;prod/rl;incorporates/f;h1/r;sda")).toEqual([`${T}/f;h1/r;sda`]);
    // After a relationship hop the next segment filters the far ends in place.
    expect(await trav("e;prod/rl;incorporates/r;sda")).toEqual([]);
  });

  it("ends with the relationships followed, or their far ends", async () => {
    expect(await trav("e;prod/r;web/rl;uses/relationship")).toEqual([usesId]);
    expect(await trav("e;prod/r;web/rl;uses/relationships")).toEqual([usesId]);
    expect(await trav("e;prod/r;web/rl;uses/entities")).toEqual([`${T}/e;prod/r;db`]);
    expect(await trav("e;prod/r;web/rl;uses/entities;name=Web")).toEqual([]);
    expect((await api.get("/traversal/e;prod/r;web/rl;uses/relationship;name=x")).status).toBe(400);
  });

  it("starts at a relationship given by id", async () => {
    expect(await trav(`rl;${usesId}`)).toEqual([`${T}/e;prod/r;db`]);
    expect(await trav(`rl;${usesId};in`)).toEqual([`${T}/e;prod/r;web`]);
    expect(await trav(`rl;${usesId}/relationships`)).toEqual([usesId]);
    expect(await trav("rl;no-such-id")).toEqual([]);
  });

  it("identical moves to entities of the same type and identity hash", async () => {
    expect(await trav("f;h1/rt;Disk/identical")).toEqual([`${T}/f;h1/rt;Disk`, `${T}/f;h2/rt;Disk`]);
    expect(await trav("f;h1/mt;Used/identical")).toEqual([`${T}/f;h1/mt;Used`, `${T}/f;h2/mt;Used`]);
    expect(await trav("f;h1/r;sdb/identical")).toEqual([`${T}/f;h1/r;sdb`]);
    expect((await api.get("/traversal/f;h1/rt;Disk/identical;type=rt")).status).toBe(400);
  });

  it("recursive descends over contains or another relationship, not into entities failing its filters", async () => {
    expect(await trav("f;h1/recursive;type=r")).toEqual([`${T}/f;h1/r;sda`, `${T}/f;h1/r;sda/r;sda1`, `${T}/f;h1/r;sdb`]);
    expect(await trav("f;h1/recursive;type=rt")).toEqual([`${T}/f;h1/rt;Disk`]);
    expect(await trav("f;h1/recursive;type=m")).toEqual([]);
    expect(await trav("f;h1/recursive/type=m")).toEqual([`${T}/f;h1/r;sda/m;used`]);
    expect(await trav("e;prod/r;web/recursive;over=uses")).toEqual([`${T}/e;prod/r;db`]);
    expect(await trav("f;h1/r;sda/recursive;over=isParentOf")).toEqual([`${T}/f;h1/r;sda/r;sda1`]);
    expect(await trav("e;prod/recursive;over=incorporates;type=f")).toEqual([`${T}/f;h1`]);
  });

  it("ends with the relationships of the current entities, out by default or in, filtered", async () => {
    const out = await body(await api.get("/traversal/e;prod/r;web/relationships"));
    expect(out.map((r: AnyJson) => r.name)).toEqual(["uses"]);
    const inc = await body(await api.get("/traversal/e;prod/r;web/relationships;in"));
    expect(inc.map((r: AnyJson) => `${r.name}:${r.source}`).sort()).toEqual([`contains:${T}/e;prod`, `defines:${T}/rt;Server`]);
    const defines = await body(await api.get("/traversal/e;prod/r;web/relationships;in;name=defines"));
    expect(defines.map((r: AnyJson) => r.source)).toEqual([`${T}/rt;Server`]);
    const bySource = await body(await api.get("/traversal/e;prod/r;web/relationships;in;sourceType=environment"));
    expect(bySource.map((r: AnyJson) => r.name)).toEqual(["contains"]);
  });

  it("rejects malformed traversals with 400", async () => {
    for (const bad of [
      "foo",
      "e;prod/unknownFilter=1",
      "type=unicorn",
      "e;prod/relationships/type=r",
      "e;prod/rl;uses;both",
      "e;prod/rl",
      "relationship",
      "e;prod/r;web/rl;uses/entities/type=r",
      "f;a%zz",
    ]) {
      const res = await api.get(`/traversal/${bad}`);
      expect(res.status, bad).toBe(400);
      expect(typeof (await body(res)).errorMsg).toBe("string");
    }
  });
});

describe("traversal paging", () => {
  it("sorts by a key of the returned objects in either order", async () => {
    const asc = await body(await api.get("/traversal/f;h1/type=r?sort=id"));
    expect(asc.map((e: AnyJson) => e.id)).toEqual(["sda", "sdb"]);
    const desc = await body(await api.get("/traversal/f;h1/type=r?sort=id&order=desc"));
    expect(desc.map((e: AnyJson) => e.id)).toEqual(["sdb", "sda"]);
  });

  it("pages with X-Total-Count and Link headers", async () => {
    const first = await expectStatus(await api.get("/traversal/recursive/type=r?sort=path&per_page=2&page=0"), 200);
    expect(first.headers.get("X-Total-Count")).toBe("5");
    const firstItems = await body(first);
    expect(firstItems).toHaveLength(2);
    const link = first.headers.get("Link")!;
    expect(link).toContain('rel="current"');
    expect(link).toMatch(/page=1>; rel="next"/);
    expect(link).toMatch(/page=2>; rel="last"/);
    expect(link).not.toContain('rel="prev"');

    const last = await expectStatus(await api.get("/traversal/recursive/type=r?sort=path&per_page=2&page=2"), 200);
    const lastItems = await body(last);
    expect(lastItems).toHaveLength(1);
    expect(last.headers.get("Link")).toMatch(/page=1>; rel="prev"/);
    expect(last.headers.get("Link")).not.toContain('rel="next"');
    const all = await body(await api.get("/traversal/recursive/type=r?sort=path"));
    expect([...firstItems, ...lastItems].map((e: AnyJson) => e.path)).toEqual([all[0].path, all[1].path, all[4].path]);

    const beyond = await expectStatus(await api.get("/traversal/recursive/type=r?per_page=2&page=9"), 200);
    expect(await body(beyond)).toEqual([]);
    expect(beyond.headers.get("X-Total-Count")).toBe("5");
  });

  it("rejects bad paging parameters", async () => {
    for (const q of ["page=-1", "per_page=0", "per_page=x", "order=sideways&sort=id"]) {
      expect((await api.get(`/traversal/type=e?${q}`)).status, q).toBe(400);
    }
  });
});

describe("traversal parser", () => {
  it("produces a query plan, not a string rewrite", () => {
    const plan = parseTraversal("e;prod/r;web/rl;uses;in;propertyName=w/recursive;over=isParentOf;type=r/relationships;in", "T");
    expect(plan.start).toEqual({ kind: "tenant" });
    expect(plan.result).toBe("relationships");
    expect(plan.steps.map((s) => s.op)).toEqual([
      "contains",
      "filter",
      "contains",
      "filter",
      "relationships",
      "ends",
      "recursive",
      "relationships",
    ]);
  });
});
