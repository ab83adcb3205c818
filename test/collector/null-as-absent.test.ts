import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";

/**
 * `null` means absent in every body of every interface, and booleans and numbers may come as
 * strings where Hawkular's JSON reader took them: what the Go client (`"retentions": null`), the
 * Ruby client (`"start": null`, …) and the Python client (timestamps as strings) send.
 */

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector();
});
afterAll(async () => {
  await col.close();
});

const post = (path: string, json: unknown, tenant = "nul") => col.req(path, { method: "POST", json, tenant });
const put = (path: string, json: unknown, tenant = "nul") => col.req(path, { method: "PUT", json, tenant });

async function expectOk(res: Response, status = 200): Promise<Response> {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${await res.text()}`);
  return res;
}

describe("metrics", () => {
  const M = "/svc/metrics";
  const now = Date.now();

  it("tenants: retentions null (the Go client's TenantDefinition)", async () => {
    await expectOk(await post(`${M}/tenants`, { id: "go-tenant", retentions: null }), 201);
    const tenants = await body(await col.req(`${M}/tenants`, { tenant: null }));
    expect(tenants).toContainEqual({ id: "go-tenant" });
  });

  it("definitions and points with null fields", async () => {
    await expectOk(await post(`${M}/gauges`, { id: "n.g", tags: null, dataRetention: null, type: null }), 201);
    await expectOk(await post(`${M}/gauges/n.g/raw`, [{ timestamp: now - 2000, value: 1, tags: null }, { timestamp: now - 1000, value: 2 }]));
    await expectOk(await post(`${M}/metrics/raw`, { gauges: [{ id: "n.g", data: [{ timestamp: now - 500, value: 3 }] }], counters: null, strings: null }));
    // A null value is still no value: the point is refused.
    expect((await post(`${M}/gauges/n.g/raw`, [{ timestamp: now, value: null }])).status).toBe(400);
  });

  it("raw queries with start, end, limit and order null (the Ruby client)", async () => {
    const res = await expectOk(await post(`${M}/gauges/raw/query`, { ids: ["n.g"], start: null, end: null, limit: null, order: null, tags: null }));
    expect((await body(res))[0].data.map((p: { value: number }) => p.value)).toEqual([3, 2, 1]);
  });

  it("stats queries with bucketDuration, start and end null", async () => {
    const res = await expectOk(await post(`${M}/metrics/stats/query`, { metrics: { gauge: ["n.g"] }, buckets: 1, bucketDuration: null, start: null, end: null, tags: null, types: null }));
    expect((await body(res)).gauge["n.g"][0].samples).toBe(3);
    await expectOk(await post(`${M}/gauges/stats/query`, { metrics: ["n.g"], buckets: 1, bucketDuration: null, percentiles: null, stacked: null }));
  });

  it("booleans as strings and numbers as strings in query bodies (fromEarliest \"true\", the Python client's timestamps)", async () => {
    await expectOk(await post(`${M}/gauges/n.py/raw`, [{ timestamp: String(now - 3000), value: 4.35 }]));
    const res = await expectOk(await post(`${M}/gauges/raw/query`, { ids: ["n.py"], fromEarliest: "true", limit: "5" }));
    expect((await body(res))[0].data).toEqual([{ timestamp: now - 3000, value: 4.35 }]);
    const stacked = await expectOk(await post(`${M}/gauges/stats/query`, { metrics: ["n.g", "n.py"], buckets: "1", stacked: "TRUE" }));
    expect((await body(stacked))[0].samples).toBe(2);
    expect((await post(`${M}/gauges/raw/query`, { ids: ["n.py"], fromEarliest: "yes" })).status).toBe(400);
  });
});

describe("alerts", () => {
  const A = "/svc/alerts";

  it("triggers, full triggers, conditions and dampenings with null fields", async () => {
    await expectOk(await post(`${A}/triggers`, { id: "n.t1", name: "t1", description: null, tags: null, context: null, actions: null, enabled: null }));
    await expectOk(
      await post(`${A}/triggers/trigger`, {
        trigger: { id: "n.t2", name: "t2", eventCategory: null, severity: null, autoDisable: "true" },
        dampenings: null,
        conditions: [{ triggerMode: "FIRING", type: "EVENT", dataId: "n.app", expression: null, context: null }],
      }),
    );
    const full = await body(await col.req(`${A}/triggers/trigger/n.t2`, { tenant: "nul" }));
    expect(full.trigger.autoDisable).toBe(true);
    expect(full.conditions).toHaveLength(1);
    expect(full.conditions[0].expression).toBeUndefined();
    await expectOk(await put(`${A}/triggers/n.t1/conditions/firing`, [{ type: "THRESHOLD", dataId: "x", operator: "GT", threshold: "5", context: null }]));
  });

  it("data and events with null fields", async () => {
    await expectOk(await post(`${A}/data`, [{ id: "x", value: "7", timestamp: null, source: null, context: null }]));
    const ev = await expectOk(await post(`${A}/events`, { id: "n.e1", category: "C", text: "T", dataId: null, tags: null, ctime: null }));
    expect((await body(ev)).ctime).toBeGreaterThan(0);
  });
});

describe("inventory", () => {
  const I = "/svc/inventory";

  it("blueprints with null fields; nulls inside a data entity's structured value are data and kept", async () => {
    await expectOk(await post(`${I}/entity/feed`, { id: "n.f", name: null, properties: null, outgoing: null }), 201);
    await expectOk(await post(`${I}/entity/f;n.f/resourceType`, { id: "n.rt", name: null }), 201);
    await expectOk(await post(`${I}/entity/f;n.f/resource`, { id: "n.r", resourceTypePath: "/f;n.f/rt;n.rt", properties: null }), 201);
    await expectOk(await post(`${I}/entity/f;n.f/r;n.r/data`, { role: "configuration", name: null, value: { a: null, b: [1, null] } }), 201);
    const d = await body(await col.req(`${I}/entity/f;n.f/r;n.r/d;configuration`, { tenant: "nul" }));
    expect(d.value).toEqual({ a: null, b: [1, null] });
  });
});

describe("datamining", () => {
  const D = "/svc/datamining";

  it("blueprints and learn points with null fields (min and max of upstream's data point)", async () => {
    await expectOk(await post(`${D}/metrics`, { metricId: "n.dm", collectionInterval: null }), 201);
    const t0 = Date.now() - 100 * 60_000;
    const points = Array.from({ length: 20 }, (_, i) => ({ timestamp: t0 + i * 60_000, value: i, min: null, max: null }));
    await expectOk(await post(`${D}/metrics/n.dm/forecaster/learn`, points), 204);
    await expectOk(await put(`${D}/metrics/n.dm/forecaster`, { modelToUse: null, ic: null, period: null, windowSize: null }), 204);
  });
});
