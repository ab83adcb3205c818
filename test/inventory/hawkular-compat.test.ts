import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AnyJson, expectStatus, type InventoryClient, inventoryClient } from "./support.ts";

/**
 * What the Ruby inventory client (hawkular-client-ruby 2.x, recorded against Hawkular Inventory
 * 0.17) and upstream's errors give clients: /status and /tenant at the root, error details, the
 * tenant header named per root, and a metric's collection interval from its type.
 */

let col: TestCollector;
let api: InventoryClient;
beforeAll(async () => {
  col = await startTestCollector();
  api = inventoryClient(col, "hawkular", "/hawkular/inventory");
});
afterAll(async () => {
  await col.close();
});

const I = "/hawkular/inventory";

describe("root resources", () => {
  it("GET /status answers the version, with or without a tenant (the Ruby client calls it first)", async () => {
    for (const tenant of [null, "hawkular"]) {
      const status = await body(await expectStatus(await col.req(`${I}/status`, { tenant }), 200));
      expect(status).toMatchObject({ Initialized: "true", "Built-From-Git-SHA1": expect.any(String) });
      // The Ruby client scans the version for numbers.
      expect(String(status["Implementation-Version"]).match(/\d+/g)!.map(Number)).toEqual([1, 1, 4]);
    }
  });

  it("GET /tenant answers the tenant of the request; PUT /tenant updates its properties", async () => {
    expect(await body(await expectStatus(await api.get("/tenant"), 200))).toEqual({ path: "/t;hawkular", id: "hawkular" });
    await expectStatus(await api.put("/tenant", { properties: { owner: "ops" } }), 204);
    expect((await body(await api.get("/tenant"))).properties).toEqual({ owner: "ops" });
  });

  it("POST /tenant/relationship relates the tenant; GET /tenant/relationships lists its relationships", async () => {
    await expectStatus(await api.post("/entity/environment", { id: "env1" }), 201);
    const rel = await body(await expectStatus(await api.post("/tenant/relationship", { name: "watches", otherEnd: "/t;hawkular/e;env1", direction: "outgoing" }), 201));
    expect(rel).toMatchObject({ name: "watches", source: "/t;hawkular", target: "/t;hawkular/e;env1" });
    const all = await body(await expectStatus(await api.get("/tenant/relationships"), 200));
    expect(all.map((r: AnyJson) => r.name).sort()).toEqual(["contains", "watches"]);
    const named = await body(await expectStatus(await api.get("/tenant/relationships;name=watches"), 200));
    expect(named.map((r: AnyJson) => r.name)).toEqual(["watches"]);
  });
});

describe("errors", () => {
  it("carry details as upstream's: entityType and path for a missing entity, entityId and paths for a duplicate", async () => {
    const missing = await api.get("/entity/f;feed_may_exist/r;%2Abla%20does%20not%20exist%2A");
    expect(missing.status).toBe(404);
    const m = await body(missing);
    expect(m.errorMsg).toContain("/t;hawkular/f;feed_may_exist/r;%2Abla%20does%20not%20exist%2A");
    expect(m.details).toEqual({ entityType: "Resource", path: [[{ paths: ["/t;hawkular/f;feed_may_exist/r;%2Abla%20does%20not%20exist%2A"] }]] });

    await expectStatus(await api.post("/entity/feed", { id: "feed_1" }), 201);
    const dup = await api.post("/entity/feed", { id: "feed_1" });
    expect(dup.status).toBe(409);
    expect((await body(dup)).details).toEqual({
      entityId: "feed_1",
      paths: [
        [
          { types: ["org.hawkular.inventory.api.model.Tenant"] },
          { ids: ["hawkular"] },
          { relationshipName: "contains", entityRole: "SOURCE" },
          { types: ["org.hawkular.inventory.api.model.Feed"] },
          { ids: ["feed_1"] },
        ],
      ],
    });
    const badPath = await body(await api.get("/entity/x;y"));
    expect(badPath.details).toBeUndefined();
  });

  it("a missing tenant header is named as the root the request came in on uses it", async () => {
    const cases: [string, RegExp][] = [
      ["/hawkular/inventory/entity/e;x", /Hawkular-Tenant/],
      ["/svc/inventory/entity/e;x", /Svc-Tenant/],
      ["/hawkular/metrics/metrics", /Hawkular-Tenant/],
      ["/svc/metrics/metrics", /Svc-Tenant/],
      ["/hawkular/alerts/triggers", /^Hawkular-Tenant header is required$/],
      ["/svc/alerts/triggers", /^Svc-Tenant header is required$/],
      ["/hawkular/datamining/metrics", /Hawkular-Tenant/],
    ];
    for (const [path, message] of cases) {
      const res = await col.req(path, { tenant: null });
      expect(res.status, path).toBe(400);
      expect((await body(res)).errorMsg, path).toMatch(message);
    }
    expect((await body(await col.req("/hawkular/inventory/entity/e;x", { tenant: null }))).errorMsg).toBe("Hawkular-Tenant HTTP header must be provided");
  });
});

describe("metrics", () => {
  it("a metric created without collectionInterval takes its metric type's", async () => {
    await expectStatus(await api.post("/entity/feed", { id: "mf" }), 201);
    await expectStatus(await api.post("/entity/f;mf/metricType", { id: "mt1", type: "GAUGE", unit: "BYTES", collectionInterval: 30 }), 201);
    const m = await body(await expectStatus(await api.post("/entity/f;mf/metric", { id: "m1", metricTypePath: "/f;mf/mt;mt1" }), 201));
    expect(m.collectionInterval).toBe(30);
    expect((await body(await api.get("/entity/f;mf/m;m1"))).collectionInterval).toBe(30);
    const own = await body(await expectStatus(await api.post("/entity/f;mf/metric", { id: "m2", metricTypePath: "mt;mt1", collectionInterval: 5 }), 201));
    expect(own.collectionInterval).toBe(5);
  });
});
