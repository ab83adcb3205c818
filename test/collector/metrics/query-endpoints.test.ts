import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";

let col: TestCollector;
const M = "/svc/metrics";
const MIN = 60_000;
const BASE = Math.floor((Date.now() - 3_600_000) / MIN) * MIN;
const post = (path: string, json: unknown) => col.req(path, { method: "POST", json, tenant: "q" });

beforeAll(async () => {
  col = await startTestCollector();
  for (const [id, tags, vals] of [
    ["q.a", { app: "web" }, [1, 2, 3]],
    ["q.b", { app: "web" }, [10, 20]],
    ["q.c", { app: "db" }, [5]],
  ] as const) {
    await post(`${M}/gauges`, { id, tags });
    await post(`${M}/gauges/${id}/raw`, vals.map((v, i) => ({ timestamp: BASE + i * MIN, value: v })));
  }
  await post(`${M}/counters/q.cnt/raw`, [0, 10, 30].map((v, i) => ({ timestamp: BASE + i * MIN, value: v })));
});
afterAll(async () => {
  await col.close();
});

describe("POST /{type}/raw/query (Grafana datasource)", () => {
  it("returns [{id, data}] for the given ids, in the requested order", async () => {
    const res = await post(`${M}/gauges/raw/query`, { ids: ["q.a", "q.b", "q.none"], start: BASE, end: BASE + 10 * MIN, order: "ASC" });
    expect(res.status).toBe(200);
    const b = await body(res);
    expect(b).toEqual([
      { id: "q.a", data: [1, 2, 3].map((v, i) => ({ timestamp: BASE + i * MIN, value: v })) },
      { id: "q.b", data: [10, 20].map((v, i) => ({ timestamp: BASE + i * MIN, value: v })) },
    ]);
  });

  it("selects by tags, and applies limit (latest first when only a limit is given)", async () => {
    const b = await body(await post(`${M}/gauges/raw/query`, { tags: "app:web", limit: 1 }));
    expect(b).toEqual([
      { id: "q.a", data: [{ timestamp: BASE + 2 * MIN, value: 3 }] },
      { id: "q.b", data: [{ timestamp: BASE + MIN, value: 20 }] },
    ]);
  });

  it("serves counter rates through /rate/query", async () => {
    const b = await body(await post(`${M}/counters/rate/query`, { ids: ["q.cnt"], start: BASE, end: BASE + 10 * MIN, order: "ASC" }));
    expect(b).toEqual([{ id: "q.cnt", data: [{ timestamp: BASE + MIN, value: 10 }, { timestamp: BASE + 2 * MIN, value: 20 }] }]);
  });

  it("answers 400 without ids or tags and for a bad body", async () => {
    expect((await post(`${M}/gauges/raw/query`, { start: BASE })).status).toBe(400);
    expect((await post(`${M}/gauges/raw/query`, { ids: "q.a" })).status).toBe(400);
    expect((await post(`${M}/gauges/raw/query`, { ids: ["q.a"], start: BASE, end: BASE })).status).toBe(400);
  });
});

describe("POST /{type}/stats/query and /metrics/stats/query", () => {
  it("returns one series of buckets over the selected metrics, stacked or pooled", async () => {
    const pooled = await body(await post(`${M}/gauges/stats/query`, { metrics: ["q.a", "q.b"], start: BASE, end: BASE + 10 * MIN, buckets: 1 }));
    expect(pooled[0]).toMatchObject({ min: 1, max: 20, samples: 5, sum: 36 });
    const stacked = await body(
      await post(`${M}/gauges/stats/query`, { tags: "app:web", start: BASE, end: BASE + 10 * MIN, buckets: 1, stacked: true }),
    );
    expect(stacked[0]).toMatchObject({ min: 11, max: 23, samples: 2, sum: 36 });
  });

  it("returns {type: {id: buckets}} from /metrics/stats/query", async () => {
    const b = await body(
      await post(`${M}/metrics/stats/query`, {
        metrics: { gauge: ["q.c"], counter: ["q.cnt"] },
        start: BASE,
        end: BASE + 10 * MIN,
        buckets: 1,
        rates: true,
      }),
    );
    // Every selected metric is answered, also where it has no data (one gauge point: no rate).
    expect(Object.keys(b).sort()).toEqual(["counter", "counter_rate", "gauge", "gauge_rate"]);
    expect(b.gauge_rate["q.c"]).toEqual([{ start: BASE, end: BASE + 10 * MIN, empty: true }]);
    expect(b.gauge["q.c"][0]).toMatchObject({ min: 5, max: 5, samples: 1 });
    expect(b.counter["q.cnt"][0]).toMatchObject({ min: 0, max: 30, samples: 3 });
    expect(b.counter_rate["q.cnt"][0]).toMatchObject({ min: 10, max: 20, samples: 2 });
  });

  it("answers 400 for missing bucket parameters", async () => {
    const res = await post(`${M}/gauges/stats/query`, { metrics: ["q.a"], start: BASE, end: BASE + 10 * MIN });
    expect(res.status).toBe(400);
    expect((await body(res)).errorMsg).toBe("Either the buckets or bucketDuration parameter must be used");
  });
});

describe("tag selectors in query bodies", () => {
  it("accepts the tag query language as well as the 0.16 tag list", async () => {
    const ids = async (tags: string) => {
      const res = await post(`${M}/gauges/raw/query`, { tags, start: BASE, end: BASE + 10 * MIN, order: "ASC" });
      return res.status === 204 ? [] : (await body(res)).map((s: { id: string }) => s.id);
    };
    expect(await ids("app = 'web'")).toEqual(["q.a", "q.b"]);
    expect(await ids("app IN ['db', 'nothing']")).toEqual(["q.c"]);
    expect(await ids("app AND app != 'db'")).toEqual(["q.a", "q.b"]);
    expect(await ids("app:db")).toEqual(["q.c"]);
    const bad = await post(`${M}/gauges/raw/query`, { tags: "app = (", start: BASE });
    expect(bad.status).toBe(400);
    expect((await body(bad)).errorMsg).toMatch(/tag query/i);
  });
});
