import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { expectStatus, type InventoryClient, inventoryClient } from "./support.ts";

let col: TestCollector;
let api: InventoryClient;
const T = "/t;bulk";

beforeAll(async () => {
  col = await startTestCollector();
  api = inventoryClient(col, "bulk");
  await expectStatus(await api.post("/entity/environment", { id: "pre" }), 201);
});
afterAll(async () => {
  await col.close();
});

describe("POST /bulk", () => {
  it("creates everything it can and reports one status per item", async () => {
    // Keys deliberately child-first: parents are still created before their children.
    const request = {
      "f;bf/r;r1": {
        dataEntity: [{ role: "configuration", value: { port: 22 } }, { role: "returnType", value: 1 }],
        relationship: [
          { name: "uses", otherEnd: "/e;b1", direction: "outgoing" },
          { name: "contains", otherEnd: "/e;b1", direction: "outgoing" },
          { name: "uses", otherEnd: "/e;nowhere", direction: "outgoing" },
        ],
      },
      "/f;bf": {
        resourceType: [{ id: "T" }],
        metricType: [{ id: "M", type: "GAUGE", unit: "NONE", collectionInterval: 5 }],
        resource: [
          { id: "r1", resourceTypePath: "rt;T" },
          { id: "bad" },
          { id: "r2", resourceTypePath: "rt;missing" },
        ],
        metric: [{ id: "m1", metricTypePath: "mt;M", collectionInterval: 5 }],
      },
      "/": {
        environment: [{ id: "b1" }, { id: "b1" }, { id: "pre" }],
        feed: [{ id: "bf" }],
      },
      "/e;b1": { feed: [{ id: "nested" }] },
      "/x;bad": { environment: [{ id: "y" }] },
    };
    const res = await expectStatus(await api.post("/bulk?at=1700000000000", request), 201);
    const st = await body(res);
    const rel = (other: string, name: string) =>
      CanonicalPath.of([{ type: "rl", id: `${T}/f;bf/r;r1-(${name})->${T}${other}` }]).toString();
    expect(st).toEqual({
      environment: { [`${T}/e;b1`]: 201, [`${T}/e;pre`]: 409, "/x;bad": 400 },
      feed: { [`${T}/f;bf`]: 201, [`${T}/e;b1/f;nested`]: 400 },
      resourceType: { [`${T}/f;bf/rt;T`]: 201 },
      metricType: { [`${T}/f;bf/mt;M`]: 201 },
      resource: { [`${T}/f;bf/r;r1`]: 201, [`${T}/f;bf/r;bad`]: 400, [`${T}/f;bf/r;r2`]: 404 },
      metric: { [`${T}/f;bf/m;m1`]: 201 },
      dataEntity: { [`${T}/f;bf/r;r1/d;configuration`]: 201, [`${T}/f;bf/r;r1/d;returnType`]: 400 },
      relationship: { [rel("/e;b1", "uses")]: 201, [rel("/e;b1", "contains")]: 400, [rel("/e;nowhere", "uses")]: 404 },
    });
    // What succeeded is there, what failed left nothing behind.
    for (const p of ["e;b1", "f;bf", "f;bf/rt;T", "f;bf/r;r1", "f;bf/m;m1", "f;bf/r;r1/d;configuration"]) {
      await expectStatus(await api.get(`/entity/${p}`), 200);
    }
    for (const p of ["f;bf/r;bad", "f;bf/r;r2", "f;bf/r;r1/d;returnType", "e;b1/f;nested"]) {
      expect((await api.get(`/entity/${p}`)).status, p).not.toBe(200);
    }
    const uses = await body(await api.get("/traversal/f;bf/r;r1/rl;uses"));
    expect(uses.map((e: { path: string }) => e.path)).toEqual([`${T}/e;b1`]);
  });

  it("accepts `at` as epoch milliseconds or ISO 8601 and rejects anything else", async () => {
    await expectStatus(await api.post("/bulk?at=2024-01-02T03:04:05Z", { "/": { environment: [{ id: "iso" }] } }), 201);
    expect((await api.post("/bulk?at=yesterday", { "/": { environment: [{ id: "never" }] } })).status).toBe(400);
    expect((await api.get("/entity/e;never")).status).toBe(404);
  });

  it("rejects bodies that are not a bulk map", async () => {
    for (const bad of [[], "x", { "/": { unicorn: [] } }, { "/": { environment: {} } }]) {
      const res = await api.post("/bulk", bad);
      expect(res.status).toBe(400);
      expect(typeof (await body(res)).errorMsg).toBe("string");
    }
  });
});
