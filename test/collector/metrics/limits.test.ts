import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/metrics/limits.ts";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector();
});
afterAll(async () => {
  await col.close();
});

const M = "/svc/metrics";
const NOW = Date.now();
const manyTags = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`tag${i}`, "v"]));

/** Posts `json` to `path` and expects a 400 whose errorMsg matches `rule`. */
async function refused(method: string, path: string, json: unknown, rule: RegExp): Promise<void> {
  const res = await col.req(path, { method, json });
  const b = await body(res);
  expect(res.status, JSON.stringify(b)).toBe(400);
  expect(b.errorMsg).toMatch(rule);
}

describe("validation limits of the metrics interface", () => {
  it("refuses the inputs issue 13 found accepted, each with a 400 naming the limit, and stores nothing", async () => {
    await refused("POST", `${M}/gauges/lim.g/raw`, [{ timestamp: NOW, value: " 5 " }], /gauge values are finite JSON numbers/);
    await refused("POST", `${M}/gauges/lim.g/raw`, [{ timestamp: 8.64e15 + 1, value: 1 }], /outside the accepted range 0 .* to 253402300799999/);
    await refused("POST", `${M}/gauges/lim.g/raw`, [{ timestamp: -1, value: 1 }], /outside the accepted range/);
    const longId = "x".repeat(100_000);
    await refused("POST", `${M}/gauges/raw`, [{ id: longId, data: [{ timestamp: NOW, value: 1 }] }], /metric id is 100000 characters long; at most 1024 are accepted/);
    // In the path (Bun itself refuses URLs beyond 16 KiB with a 431).
    await refused("POST", `${M}/gauges/${"x".repeat(2000)}/raw`, [{ timestamp: NOW, value: 1 }], /metric id is 2000 characters long; at most 1024/);
    await refused("POST", `${M}/gauges`, { id: longId }, /at most 1024 are accepted/);
    await refused("POST", `${M}/gauges/lim.g/raw`, [{ timestamp: NOW, value: 1, tags: manyTags(10_000) }], /10000 tags on a data point; at most 32 are accepted/);
    await refused("POST", `${M}/gauges`, { id: "lim.def", tags: manyTags(10_000) }, /10000 tags on a metric; at most 128 are accepted/);
    await refused("POST", `${M}/gauges`, { id: "lim.def", tags: { ["n".repeat(300)]: "v" } }, /is 300 characters long; at most 256 are accepted/);
    await refused("POST", `${M}/gauges`, { id: "lim.def", tags: { n: "v".repeat(2000) } }, /value of tag "n" is 2000 characters long; at most 1024 are accepted/);
    await refused("POST", `${M}/metrics/raw`, { counters: [{ id: "lim.c", dataPoints: [{ timestamp: NOW, value: "7" }] }] }, /counter values are integers/);
    expect((await col.req(`${M}/gauges/lim.g/raw`)).status).toBe(204);
    expect((await col.req(`${M}/gauges/lim.def`)).status).toBe(204);
  });

  it("accepts inputs right at the limits", async () => {
    const id = "y".repeat(LIMITS.metricIdLength);
    const ok = await col.req(`${M}/gauges/raw`, {
      method: "POST",
      json: [{ id, data: [{ timestamp: LIMITS.maxTimestamp, value: 1, tags: manyTags(LIMITS.tagsPerPoint) }] }],
    });
    expect(ok.status).toBe(200);
    const def = await col.req(`${M}/gauges`, { method: "POST", json: { id: "lim.full", tags: manyTags(LIMITS.tagsPerMetric) } });
    expect(def.status).toBe(201);
  });

  it("holds the tags-per-metric limit for the tags a metric ends up with after an update", async () => {
    expect((await col.req(`${M}/gauges`, { method: "POST", json: { id: "lim.upd", tags: manyTags(100) } })).status).toBe(201);
    await refused("PUT", `${M}/gauges/lim.upd/tags`, Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`more${i}`, "v"])), /140 tags on a metric; at most 128/);
    expect((await col.req(`${M}/gauges/lim.upd/tags`, { method: "PUT", json: { tag1: "changed", extra: "1" } })).status).toBe(200);
    expect(Object.keys((await body(await col.req(`${M}/gauges/lim.upd`))).tags)).toHaveLength(101);
  });
});
