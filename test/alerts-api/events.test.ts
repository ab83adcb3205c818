import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { type AlertsClient, alertsClient, expectError, nextTimestamp } from "./helpers.ts";

let col: TestCollector;
let api: AlertsClient;
beforeAll(async () => {
  col = await startTestCollector();
  api = alertsClient(col);
});
afterAll(async () => {
  await col.close();
});

const ids = (list: { id: string }[]) => list.map((e) => e.id).sort();

describe("events", () => {
  it("creates an event: category and text required, id unique, tenant from the header", async () => {
    const e = await api.ok("POST", "/events", { id: "ev-1", ctime: 1000, category: "DEPLOY", text: "v2 out", tenantId: "x", context: { by: "ci" } });
    expect(e).toEqual({ eventType: "EVENT", tenantId: "t1", id: "ev-1", ctime: 1000, dataSource: "_none_", category: "DEPLOY", text: "v2 out", context: { by: "ci" } });
    expect(await api.ok("GET", "/events/event/ev-1")).toEqual(e);
    await expectError(await api.post("/events", { id: "ev-1", category: "DEPLOY", text: "again" }), 400, /exists/);
    await expectError(await api.post("/events", { id: "ev-x", text: "no category" }), 400, /category/);
    await expectError(await api.post("/events", { id: "ev-y", category: "C" }), 400, /text/);
    await expectError(await api.post("/events", { category: "C", text: "t" }), 400, /id/);
    await expectError(await api.post("/events", { id: "ev-z", category: "C", text: "t", tags: { k: "" } }), 400, /empty value/);
    await expectError(await api.get("/events/event/none"), 404);
  });

  it("queries by time, ids, categories, tags and tag query, with paging", async () => {
    const mk = (id: string, ctime: number, category: string, tags: Record<string, string>) =>
      api.ok("POST", "/events", { id, ctime, category, text: id, tags });
    await mk("q-1", 10_000, "A", { env: "prod" });
    await mk("q-2", 20_000, "B", { env: "test" });
    await mk("q-3", 30_000, "A", { env: "test", team: "db" });
    const scoped = "eventIds=q-1,q-2,q-3";
    expect(ids(await api.ok("GET", `/events?${scoped}&startTime=15000`))).toEqual(["q-2", "q-3"]);
    expect(ids(await api.ok("GET", `/events?${scoped}&endTime=20000`))).toEqual(["q-1", "q-2"]);
    expect(ids(await api.ok("GET", `/events?${scoped}&categories=A`))).toEqual(["q-1", "q-3"]);
    expect(ids(await api.ok("GET", `/events?${scoped}&tags=env|test`))).toEqual(["q-2", "q-3"]);
    expect(ids(await api.ok("GET", `/events?${scoped}&tagQuery=team`))).toEqual(["q-3"]);
    const res = await api.get(`/events?${scoped}&per_page=2&sort=ctime&order=desc`);
    expect(res.headers.get("X-Total-Count")).toBe("3");
    expect((await body(res)).map((e: { id: string }) => e.id)).toEqual(["q-3", "q-2"]);
    expect(ids(await api.ok("GET", `/events?${scoped}&eventType=EVENT`))).toEqual(["q-1", "q-2", "q-3"]);
    await expectError(await api.get("/events?eventType=NOTICE"), 400, /eventType/);
  });

  it("tags events and removes tags", async () => {
    await api.ok("POST", "/events", { id: "tg-1", category: "C", text: "t" });
    await api.ok("PUT", "/events/tags?eventIds=tg-1&tags=a|1,b|2");
    expect((await api.ok("GET", "/events/event/tg-1")).tags).toEqual({ a: "1", b: "2" });
    expect((await col.req("/svc/alerts/events/tags?eventIds=tg-1&tagNames=a", { method: "DELETE" })).status).toBe(200);
    expect((await api.ok("GET", "/events/event/tg-1")).tags).toEqual({ b: "2" });
    await expectError(await api.put("/events/tags?eventIds=tg-1"), 400);
  });

  it("deletes one event (404 after) and by filter; evaluation-only events are never stored", async () => {
    await api.ok("POST", "/events", { id: "d-1", ctime: 5, category: "DEL", text: "t" });
    await api.ok("POST", "/events", { id: "d-2", ctime: 6, category: "DEL", text: "t" });
    await api.ok("POST", "/events", { id: "d-3", ctime: 7, category: "DEL", text: "t" });
    expect(await api.ok("DELETE", "/events/d-1")).toEqual({ deleted: 1 });
    await expectError(await api.del("/events/d-1"), 404);
    expect(await api.ok("PUT", "/events/delete?categories=DEL&startTime=7")).toEqual({ deleted: 1 });
    expect(ids(await api.ok("GET", "/events?categories=DEL"))).toEqual(["d-2"]);

    await api.ok("POST", "/events/data", [{ id: "only-evaluated", category: "X", text: "t", dataId: "nobody" }]);
    expect(await api.ok("GET", "/events?eventIds=only-evaluated")).toEqual([]);
    await expectError(await api.post("/events/data", []), 400, /empty/);
    await expectError(await api.post("/events/data", [{ category: "X" }]), 400, /id/);
  });

  it("events fired by triggers carry trigger, dampening and evalSets; thin leaves them out", async () => {
    await api.ok("POST", "/triggers/trigger", {
      trigger: { id: "evt-trigger", name: "named", enabled: true, eventType: "EVENT", description: "described" },
      conditions: [{ type: "THRESHOLD", dataId: "evt.v", operator: "GT", threshold: 1 }],
    });
    await api.ok("POST", "/data", [{ id: "evt.v", timestamp: nextTimestamp(), value: 5 }]);
    const [e] = await api.ok("GET", "/events?triggerIds=evt-trigger");
    expect(e).toMatchObject({ category: "TRIGGER", text: "described", dataId: "evt-trigger", trigger: { id: "evt-trigger" }, dampening: {} });
    expect(e.evalSets).toHaveLength(1);
    const [thin] = await api.ok("GET", "/events?triggerIds=evt-trigger&thin=true");
    expect(thin.evalSets).toBeUndefined();
    const one = await api.ok("GET", `/events/event/${e.id}?thin=true`);
    expect(one.evalSets).toBeUndefined();
    expect(one.dampening).toBeUndefined();
  });

  it("keeps tenants apart", async () => {
    await api.ok("POST", "/events", { id: "mine-1", category: "C", text: "t" }, "ta");
    await expectError(await api.get("/events/event/mine-1", "tb"), 404);
    expect(await api.ok("GET", "/events", undefined, "tb")).toEqual([]);
    expect(await api.ok("PUT", "/events/delete", undefined, "tb")).toEqual({ deleted: 0 });
    expect((await api.ok("GET", "/events/event/mine-1", undefined, "ta")).id).toBe("mine-1");
  });
});
