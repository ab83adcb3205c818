import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AnyJson, expectStatus, type InventoryClient, inventoryClient, paths } from "./support.ts";

let col: TestCollector;
let api: InventoryClient;
const T = "/t;dep";

async function json(res: Promise<Response>, status = 200): Promise<AnyJson> {
  return body(await expectStatus(await res, status));
}

beforeAll(async () => {
  col = await startTestCollector();
  api = inventoryClient(col, "dep", "/svc/inventory/deprecated");
});
afterAll(async () => {
  await col.close();
});

describe("deprecated: general", () => {
  it("GET / lists the endpoints and GET /ping answers the server date", async () => {
    const root = await json(api.get(""));
    expect(root.endpoints).toEqual(expect.arrayContaining(["/deprecated/ping", "/deprecated/resourceTypes/{resourceTypeId}/data"]));
    const ping = await json(api.get("/ping"));
    expect(Number.isNaN(Date.parse(ping))).toBe(false);
  });

  it("POST /bulk creates like /bulk", async () => {
    const st = await json(api.post("/bulk", { "/": { environment: [{ id: "bulkenv" }] } }), 201);
    expect(st).toEqual({ environment: { [`${T}/e;bulkenv`]: 201 } });
  });

  it("tenant: GET, PUT, relationships, DELETE of everything", async () => {
    const other = inventoryClient(col, "dep-gone", "/svc/inventory/deprecated");
    await expectStatus(await other.post("/environments", { id: "e1" }), 201);
    expect((await json(other.get("/tenant"))).path).toBe("/t;dep-gone");
    await expectStatus(await other.put("/tenant", { properties: { owner: "ops" } }), 204);
    expect((await json(other.get("/tenant"))).properties).toEqual({ owner: "ops" });
    expect((await other.put("/tenant", { properties: "nope" })).status).toBe(400);
    const rels = await json(other.get("/tenant/relationships?direction=outgoing&named=contains"));
    expect(rels.map((r: AnyJson) => r.target)).toEqual(["/t;dep-gone/e;e1"]);
    await expectStatus(await other.del("/tenant"), 204);
    expect((await other.get("/environments/e1")).status).toBe(404);
    expect((await json(other.get("/tenant"))).properties).toBeUndefined();
  });
});

describe("deprecated: types and metadata packs", () => {
  it("metric types: list (feedless), create, read, update, delete", async () => {
    const res = await expectStatus(await api.post("/metricTypes", { id: "Heap", type: "GAUGE", unit: "BYTES", collectionInterval: 60 }), 201);
    expect(res.headers.get("Location")).toBe(`${col.url}/svc/inventory/deprecated/metricTypes/Heap`);
    expect((await api.post("/metricTypes", { id: "Heap", type: "GAUGE", unit: "BYTES", collectionInterval: 60 })).status).toBe(409);
    expect((await api.post("/metricTypes", { id: "Bad", type: "GAUGE", unit: "LIGHTYEARS", collectionInterval: 1 })).status).toBe(400);
    await expectStatus(await api.post("/feeds", { id: "feedA" }), 201);
    await expectStatus(await inventoryClient(col, "dep").post("/entity/f;feedA/metricType", { id: "Local", type: "COUNTER", unit: "NONE", collectionInterval: 1 }), 201);
    expect(paths(await json(api.get("/metricTypes?feedless=true")))).toEqual([`${T}/mt;Heap`]);
    expect(paths(await json(api.get("/metricTypes")))).toEqual([`${T}/f;feedA/mt;Local`, `${T}/mt;Heap`]);
    expect((await json(api.get("/metricTypes/Heap"))).unit).toBe("BYTES");
    await expectStatus(await api.put("/metricTypes/Heap", { unit: "KILOBYTES" }), 204);
    expect((await json(api.get("/metricTypes/Heap"))).unit).toBe("KILOBYTES");
    expect((await api.put("/metricTypes/Heap", { unit: "PARSECS" })).status).toBe(400);
    expect((await api.get("/metricTypes/Nope")).status).toBe(404);
  });

  it("resource types with data, metric types, operation types (and their data) and resources", async () => {
    await expectStatus(await api.post("/resourceTypes", { id: "Server" }), 201);
    expect((await api.post("/resourceTypes", { id: "Server" })).status).toBe(409);
    expect(paths(await json(api.get("/resourceTypes?feedless=true")))).toEqual([`${T}/rt;Server`]);
    await expectStatus(await api.put("/resourceTypes/Server", { name: "Srv" }), 204);
    expect((await json(api.get("/resourceTypes/Server"))).name).toBe("Srv");

    // data, selected by dataType
    await expectStatus(await api.post("/resourceTypes/Server/data?dataType=configurationSchema", [{ value: { a: 1 } }]), 204);
    await expectStatus(await api.post("/resourceTypes/Server/data", [{ role: "connectionConfigurationSchema", value: "c" }]), 204);
    expect((await json(api.get("/resourceTypes/Server/data?dataType=configurationSchema"))).value).toEqual({ a: 1 });
    await expectStatus(await api.put("/resourceTypes/Server/data?dataType=connectionConfigurationSchema", { value: "d" }), 204);
    expect((await json(api.get("/resourceTypes/Server/data?dataType=connectionConfigurationSchema"))).value).toBe("d");
    expect((await api.get("/resourceTypes/Server/data?dataType=returnType")).status).toBe(400);
    await expectStatus(await api.del("/resourceTypes/Server/data?dataType=connectionConfigurationSchema"), 204);
    expect((await api.get("/resourceTypes/Server/data?dataType=connectionConfigurationSchema")).status).toBe(404);

    // metric types of the resource type, by id or canonical path
    await expectStatus(await api.post("/resourceTypes/Server/metricTypes", ["Heap"]), 204);
    await expectStatus(await api.post("/resourceTypes/Server/metricTypes", ["/f;feedA/mt;Local"]), 204);
    expect(paths(await json(api.get("/resourceTypes/Server/metricTypes")))).toEqual([`${T}/f;feedA/mt;Local`, `${T}/mt;Heap`]);
    expect((await json(api.get("/resourceTypes/Server/metricTypes/Heap"))).path).toBe(`${T}/mt;Heap`);
    expect((await json(api.get("/resourceTypes/Server/metricTypes/f;feedA/mt;Local?canonical=true"))).path).toBe(`${T}/f;feedA/mt;Local`);
    await expectStatus(await api.del("/resourceTypes/Server/metricTypes/f;feedA/mt;Local?canonical=true"), 204);
    expect((await api.get("/resourceTypes/Server/metricTypes/f;feedA/mt;Local?canonical=true")).status).toBe(404);
    expect((await api.post("/resourceTypes/Server/metricTypes", [{ not: "a path" }])).status).toBe(400);

    // operation types and their data
    await expectStatus(await api.post("/resourceTypes/Server/operationTypes", { id: "restart" }), 204);
    expect(paths(await json(api.get("/resourceTypes/Server/operationTypes")))).toEqual([`${T}/rt;Server/ot;restart`]);
    await expectStatus(await api.put("/resourceTypes/Server/operationTypes/restart", { name: "Restart" }), 204);
    expect((await json(api.get("/resourceTypes/Server/operationTypes/restart"))).name).toBe("Restart");
    await expectStatus(await api.post("/resourceTypes/Server/operationTypes/restart/data?dataType=returnType", [{ value: "bool" }]), 204);
    await expectStatus(await api.put("/resourceTypes/Server/operationTypes/restart/data?dataType=returnType", { value: "int" }), 204);
    expect((await json(api.get("/resourceTypes/Server/operationTypes/restart/data?dataType=returnType"))).value).toBe("int");
    await expectStatus(await api.del("/resourceTypes/Server/operationTypes/restart/data?dataType=returnType"), 204);
    await expectStatus(await api.del("/resourceTypes/Server/operationTypes/restart"), 204);
    expect((await api.get("/resourceTypes/Server/operationTypes/restart")).status).toBe(404);

    // resources defined by the type
    await expectStatus(await api.post("/environments", { id: "prod" }), 201);
    await expectStatus(await api.post("/prod/resources", { id: "web", resourceTypePath: "/rt;Server" }), 201);
    expect(paths(await json(api.get("/resourceTypes/Server/resources")))).toEqual([`${T}/e;prod/r;web`]);
  });

  it("metadata packs: create, read, members, update, delete, and they protect their members", async () => {
    await expectStatus(await api.post("/resourceTypes", { id: "Packed" }), 201);
    const res = await expectStatus(await api.post("/metadatapacks", { members: ["/rt;Packed", "/mt;Heap"], name: "pack" }), 201);
    const pack = await body(res);
    const id = pack.id as string;
    expect(res.headers.get("Location")).toBe(`${col.url}/svc/inventory/deprecated/metadatapacks/${id}`);
    expect(paths(await json(api.get("/metadatapacks")))).toEqual([`${T}/mp;${id}`]);
    expect((await json(api.get(`/metadatapacks/${id}`))).name).toBe("pack");
    expect(paths(await json(api.get(`/metadatapacks/${id}/resourceTypes`)))).toEqual([`${T}/rt;Packed`]);
    expect(paths(await json(api.get(`/metadatapacks/${id}/metricTypes`)))).toEqual([`${T}/mt;Heap`]);
    await expectStatus(await api.put(`/metadatapacks/${id}`, { name: "renamed" }), 204);
    expect((await json(api.get(`/metadatapacks/${id}`))).name).toBe("renamed");
    expect((await api.del("/metricTypes/Heap")).status).toBe(400);
    expect((await api.del("/resourceTypes/Packed")).status).toBe(400);
    expect((await api.post("/metadatapacks", { members: ["/e;prod"] })).status).toBe(400);
    await expectStatus(await api.del(`/metadatapacks/${id}`), 204);
    await expectStatus(await api.del("/resourceTypes/Packed"), 204);
    expect((await api.get("/resourceTypes/Packed")).status).toBe(404);
  });
});

describe("deprecated: environments, feeds, resources, metrics", () => {
  beforeAll(async () => {
    await expectStatus(await api.post("/environments", { id: "stage" }), 201);
    await expectStatus(await api.post("/feeds", { id: "h1" }), 201);
    const inv = inventoryClient(col, "dep");
    await expectStatus(await inv.post("/entity/f;h1/resourceType", { id: "Disk" }), 201);
    await expectStatus(await inv.post("/entity/f;h1/metricType", { id: "Used", type: "GAUGE", unit: "PERCENTAGE", collectionInterval: 5 }), 201);
    await expectStatus(await api.post("/feeds/h1/resources", { id: "sda", resourceTypePath: "rt;Disk" }), 201);
    await expectStatus(await inv.post("/entity/f;h1/r;sda/resource", { id: "sda1", resourceTypePath: "../rt;Disk" }), 201);
    await expectStatus(await inv.post("/entity/f;h1/r;sda/r;sda1/resource", { id: "p1", resourceTypePath: "/rt;Server" }), 201);
    await expectStatus(await inv.post("/entity/f;h1/metric", { id: "feedMetric", metricTypePath: "mt;Used", collectionInterval: 5 }), 201);
  });

  it("environment feeds: associate, list, read, and a feed belongs to one environment", async () => {
    await expectStatus(await api.post("/stage/feeds", ["h1"]), 204);
    expect(paths(await json(api.get("/stage/feeds")))).toEqual([`${T}/f;h1`]);
    expect((await json(api.get("/stage/feeds/h1"))).path).toBe(`${T}/f;h1`);
    expect((await json(api.get("/stage/feeds/f;h1?canonical=true"))).path).toBe(`${T}/f;h1`);
    const taken = await api.post("/prod/feeds", ["h1"]);
    expect(taken.status).toBe(400);
    await expectStatus(await api.del("/stage/feeds/h1"), 204);
    expect((await api.get("/stage/feeds/h1")).status).toBe(404);
    await expectStatus(await api.post("/prod/feeds", ["/f;h1"]), 204);
  });

  it("environment metrics: create, list (feedless), read, update, delete", async () => {
    const res = await expectStatus(await api.post("/stage/metrics", { id: "heap", metricTypePath: "/mt;Heap", collectionInterval: 60 }), 201);
    expect(res.headers.get("Location")).toBe(`${col.url}/svc/inventory/deprecated/stage/metrics/heap`);
    expect((await api.post("/stage/metrics", { id: "heap", metricTypePath: "/mt;Heap", collectionInterval: 60 })).status).toBe(409);
    // Without collectionInterval a metric takes its metric type's.
    const typeInterval = (await json(api.get("/metricTypes/Heap"))).collectionInterval;
    const own = await body(await expectStatus(await api.post("/stage/metrics", { id: "nointerval", metricTypePath: "/mt;Heap" }), 201));
    expect(own.collectionInterval).toBe(typeInterval);
    await expectStatus(await api.del("/stage/metrics/nointerval"), 204);
    expect(paths(await json(api.get("/stage/metrics?feedless=true")))).toEqual([`${T}/e;stage/m;heap`]);
    expect((await json(api.get("/stage/metrics/heap"))).type.id).toBe("Heap");
    await expectStatus(await api.put("/stage/metrics/heap", { collectionInterval: 30 }), 204);
    expect((await json(api.get("/stage/metrics/heap"))).collectionInterval).toBe(30);
    await expectStatus(await api.del("/stage/metrics/heap"), 204);
    expect((await api.get("/stage/metrics/heap")).status).toBe(404);
  });

  it("environment resources: create, child create, list with type filter", async () => {
    await expectStatus(await api.post("/stage/resources", { id: "srv", resourceTypePath: "/rt;Server" }), 201);
    expect((await api.post("/stage/resources", { id: "srv", resourceTypePath: "/rt;Server" })).status).toBe(409);
    expect((await api.post("/stage/resources", { id: "x", resourceTypePath: "/rt;Missing" })).status).toBe(404);
    expect((await api.post("/stage/resources", { id: "x" })).status).toBe(400);
    expect((await api.post("/nowhere/resources", { id: "x", resourceTypePath: "/rt;Server" })).status).toBe(404);
    const child = await expectStatus(await api.post("/stage/resources/srv", { id: "child", resourceTypePath: "/rt;Server" }), 201);
    expect((await body(child)).path).toBe(`${T}/e;stage/r;srv/r;child`);
    await expectStatus(await api.post("/stage/resources", { id: "other", resourceTypePath: `/f;h1/rt;Disk` }), 201);
    expect(paths(await json(api.get("/stage/resources?type=Server&feedless=true")))).toEqual([`${T}/e;stage/r;srv`]);
    expect(paths(await json(api.get("/stage/resources")))).toEqual([`${T}/e;stage/r;other`, `${T}/e;stage/r;srv`]);
    // A resource by its path below the environment: read, update, delete.
    expect((await json(api.get("/stage/resources/srv/child"))).path).toBe(`${T}/e;stage/r;srv/r;child`);
    await expectStatus(await api.put("/stage/resources/srv/r;child", { name: "kid" }), 204);
    expect((await json(api.get("/stage/resources/srv/child"))).name).toBe("kid");
    await expectStatus(await api.del("/stage/resources/srv/child"), 204);
    expect((await api.get("/stage/resources/srv/child")).status).toBe(404);
  });

  it("environments and feeds: list, read, update, delete", async () => {
    expect(paths(await json(api.get("/environments")))).toEqual(expect.arrayContaining([`${T}/e;stage`, `${T}/e;prod`]));
    await expectStatus(await api.put("/feeds/h1", { name: "Host 1" }), 204);
    expect((await json(api.get("/feeds/h1"))).name).toBe("Host 1");
    expect(paths(await json(api.get("/feeds")))).toContain(`${T}/f;h1`);
    await expectStatus(await api.post("/environments", { id: "temp" }), 201);
    await expectStatus(await api.del("/environments/temp"), 204);
    expect((await api.get("/environments/temp")).status).toBe(404);
  });

  it("resource metrics: create under the resource, associate existing ones, read, disassociate, delete", async () => {
    const made = await expectStatus(
      await api.post("/feeds/h1/resources/sda/metrics", { id: "own", metricTypePath: "../mt;Used", collectionInterval: 5 }),
      201,
    );
    expect((await body(made)).path).toBe(`${T}/f;h1/r;sda/m;own`);
    await expectStatus(await api.post("/feeds/h1/resources/sda/metrics", ["/f;h1/m;feedMetric"]), 204);
    expect((await api.post("/feeds/h1/resources/sda/metrics", ["/f;h1/m;nothing"])).status).toBe(404);
    expect(paths(await json(api.get("/feeds/h1/resources/sda/metrics")))).toEqual([`${T}/f;h1/m;feedMetric`, `${T}/f;h1/r;sda/m;own`]);
    expect((await json(api.get("/feeds/h1/resources/sda/metrics/own"))).path).toBe(`${T}/f;h1/r;sda/m;own`);
    expect((await json(api.get("/feeds/h1/resources/sda/metrics/f;h1/m;feedMetric?canonical=true"))).path).toBe(`${T}/f;h1/m;feedMetric`);
    expect((await api.get("/feeds/h1/resources/sda/metrics/nothing")).status).toBe(404);
    // Disassociating keeps an associated metric, but deletes one the resource contains.
    await expectStatus(await api.del("/feeds/h1/resources/sda/metrics/f;h1/m;feedMetric?canonical=true"), 204);
    await expectStatus(await inventoryClient(col, "dep").get("/entity/f;h1/m;feedMetric"), 200);
    await expectStatus(await api.del("/feeds/h1/resources/sda/metrics/own"), 204);
    expect((await inventoryClient(col, "dep").get("/entity/f;h1/r;sda/m;own")).status).toBe(404);
    expect((await api.get("/feeds/h1/resources/nope/metrics")).status).toBe(404);
  });

  it("resource parent, parents and recursive children", async () => {
    expect((await json(api.get("/feeds/h1/resources/sda/sda1/parent"))).path).toBe(`${T}/f;h1/r;sda`);
    expect((await api.get("/feeds/h1/resources/sda/parent")).status).toBe(404);
    const inv = inventoryClient(col, "dep");
    await expectStatus(await inv.post("/entity/f;h1/resource", { id: "sdz", resourceTypePath: "rt;Disk" }), 201);
    await expectStatus(await inv.post("/entity/f;h1/r;sdz/relationship", { name: "isParentOf", otherEnd: "../r;sda/r;sda1", direction: "outgoing" }), 201);
    expect(paths(await json(api.get("/feeds/h1/resources/sda/sda1/parents")))).toEqual([`${T}/f;h1/r;sda`, `${T}/f;h1/r;sdz`]);
    expect(paths(await json(api.get("/feeds/h1/resources/sda/recursiveChildren")))).toEqual([`${T}/f;h1/r;sda/r;sda1`, `${T}/f;h1/r;sda/r;sda1/r;p1`]);
    expect(paths(await json(api.get("/feeds/h1/resources/sda/recursiveChildren?typeId=Disk")))).toEqual([`${T}/f;h1/r;sda/r;sda1`]);
    expect(paths(await json(api.get("/feeds/h1/resources/sda/recursiveChildren?typeId=Server&feedlessType=true")))).toEqual([
      `${T}/f;h1/r;sda/r;sda1/r;p1`,
    ]);
  });

  it("paths, relationships by entity and by id, and sync", async () => {
    expect((await json(api.get("/path/f;h1/r;sda"))).path).toBe(`${T}/f;h1/r;sda`);
    expect((await json(api.get("/path/t;dep/f;h1"))).path).toBe(`${T}/f;h1`);
    expect((await api.get("/path/f;h1/r;none")).status).toBe(404);
    await expectStatus(await api.post("/feeds/h1/resources/sda/metrics", ["/f;h1/m;feedMetric"]), 204);
    const all = await json(api.get("/path/f;h1/r;sda/relationships"));
    expect(all.map((r: AnyJson) => r.name).sort()).toEqual(["contains", "contains", "defines", "incorporates", "isParentOf"].sort());
    const out = await json(api.get("/path/f;h1/r;sda/relationships?direction=outgoing&named=isParentOf"));
    expect(out.map((r: AnyJson) => r.target)).toEqual([`${T}/f;h1/r;sda/r;sda1`]);
    const fromType = await json(api.get("/path/f;h1/r;sda/relationships?direction=incoming&sourceType=ResourceType&jsonld=false"));
    expect(fromType.map((r: AnyJson) => r.name)).toEqual(["defines"]);
    const toMetrics = await json(api.get("/path/f;h1/r;sda/relationships?targetType=Metric"));
    expect(toMetrics.map((r: AnyJson) => r.name)).toEqual(["incorporates"]);
    expect((await api.get("/path/f;h1/r;sda/relationships?direction=sideways")).status).toBe(400);
    const rel = await json(api.get(`/relationships/${out[0].id}`));
    expect(rel).toEqual(out[0]);
    expect((await api.get("/relationships/unknown")).status).toBe(404);
    const withProps = await inventoryClient(col, "dep").post("/entity/f;h1/relationship", {
      name: "tagged",
      otherEnd: "/e;stage",
      direction: "outgoing",
      properties: { level: "gold" },
    });
    await expectStatus(withProps, 201);
    const gold = await json(api.get("/path/f;h1/relationships?property=level&propertyValue=gold"));
    expect(gold.map((r: AnyJson) => r.name)).toEqual(["tagged"]);

    // Relationship create (under an entity and the tenant), update and delete.
    const made = await expectStatus(await api.post("/path/f;h1/relationships", [{ name: "watches", otherEnd: "/e;stage", direction: "outgoing" }]), 201);
    const [watches] = await body(made);
    expect(watches).toMatchObject({ name: "watches", source: `${T}/f;h1`, target: `${T}/e;stage` });
    expect(made.headers.get("location")).toMatch(new RegExp(`/svc/inventory/deprecated/relationships/${watches.id}$`));
    await expectStatus(await api.put(`/relationships/${watches.id}`, { properties: { why: "test" } }), 204);
    expect((await json(api.get(`/relationships/${watches.id}`))).properties).toEqual({ why: "test" });
    expect((await api.post("/path/f;h1/relationships", { name: "watches", otherEnd: "/e;stage", direction: "outgoing" })).status).toBe(409);
    expect((await api.post("/path/f;h1/relationships", { name: "x", otherEnd: "/e;nowhere", direction: "outgoing" })).status).toBe(404);
    expect((await api.post("/path/f;h1/relationships", { otherEnd: "/e;stage" })).status).toBe(400);
    expect((await api.post("/path/f;h1", {})).status).toBe(400);
    await expectStatus(await api.del(`/relationships/${watches.id}`), 204);
    expect((await api.get(`/relationships/${watches.id}`)).status).toBe(404);
    expect((await api.del(`/relationships/${watches.id}`)).status).toBe(404);
    const fromTenant = await json(api.post("/tenant/relationships", { name: "owns", otherEnd: "/e;stage", direction: "outgoing" }), 201);
    expect(fromTenant).toMatchObject({ name: "owns", source: T, target: `${T}/e;stage` });

    await expectStatus(await api.post("/sync/f;synced", { structure: { type: "feed", data: { id: "synced" } } }), 204);
    await expectStatus(await api.get("/feeds/synced"), 200);
    expect((await api.post("/sync/e;stage", { structure: { type: "feed", data: { id: "stage" } } })).status).toBe(400);
    expect((await api.post("/sync/f;h1/r;none/r;x", { structure: { type: "resource", data: { id: "x", resourceTypePath: "/rt;Server" } } })).status).toBe(
      404,
    );
  });
});
