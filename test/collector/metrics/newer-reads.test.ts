import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";

/**
 * Reads of the newer Hawkular Metrics generation (0.17–0.28) that clients use once /status
 * reports it: restated from upstream's REST suites (MetricsITest, GaugesITest, TenantITest,
 * AvailabilityITest at 0.28) and from what the Grafana datasource and the Ruby client send.
 */

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector();
});
afterAll(async () => {
  await col.close();
});

const M = "/svc/metrics";
const MIN = 60_000;
const HOUR = 60 * MIN;
const post = (path: string, json: unknown, tenant = "nr") => col.req(path, { method: "POST", json, tenant });
const get = (path: string, tenant = "nr") => col.req(path, { tenant });

describe("status", () => {
  it("reports the generation served, so the Grafana datasource uses its full mode (tag query language from 0.24)", async () => {
    const status = await body(await col.req(`${M}/status`, { tenant: null }));
    expect(status.MetricsService).toBe("STARTED");
    // The datasource's own version test: major 0 and minor >= 24 enables every capability.
    const [, major, minor] = /^(\d+)\.(\d+)\.(.+)$/.exec(status["Implementation-Version"])!;
    expect(Number(major)).toBe(0);
    expect(Number(minor)).toBeGreaterThanOrEqual(24);
    expect(status["Implementation-Version"]).toBe("0.28.2");
  });

  it("serves /m as an alias of /metrics (MetricsITest dualPathTest)", async () => {
    await post(`${M}/metrics/raw`, { gauges: [{ id: "CG1", data: [{ timestamp: Date.now() - MIN, value: 10.032 }] }] }, "dual");
    const a = await body(await get(`${M}/metrics`, "dual"));
    const b = await body(await get(`${M}/m`, "dual"));
    expect(b).toEqual(a);
    expect((await post(`${M}/m/stats/query`, { metrics: { gauge: ["CG1"] }, buckets: 1 }, "dual")).status).toBe(200);
  });
});

describe("relative start and end", () => {
  it("reads -11mn as eleven minutes ago (MetricsITest relativeTimeStamps)", async () => {
    const start = Date.now() - 10 * MIN;
    await post(`${M}/metrics/raw`, {
      counters: [{ id: "RC", data: [{ timestamp: start, value: 10 }, { timestamp: start + 5 * MIN, value: 20 }] }],
      gauges: [{ id: "RG", data: [{ timestamp: start, value: 25.4 }, { timestamp: start + 5 * MIN, value: 15.8 }] }],
    });
    const first = await body(await post(`${M}/metrics/stats/query`, { buckets: 1, start: "-11mn", end: "-9mn", metrics: { gauge: ["RG"], counter: ["RC"] } }));
    expect(first.gauge.RG[0]).toMatchObject({ avg: 25.4, samples: 1 });
    expect(first.counter.RC[0]).toMatchObject({ avg: 10, samples: 1 });
    const second = await body(await post(`${M}/metrics/stats/query`, { buckets: 1, start: "-6mn", end: "-4mn", metrics: { gauge: ["RG"], counter: ["RC"] } }));
    expect(second.gauge.RG[0]).toMatchObject({ avg: 15.8, samples: 1 });
    // The same in query strings, and +duration for a time ahead.
    const raw = await body(await get(`${M}/gauges/RG/raw?start=-6mn&end=%2B1h`));
    expect(raw.map((p: { value: number }) => p.value)).toEqual([15.8]);
    const bad = await get(`${M}/gauges/RG/raw?start=-6w`);
    expect(bad.status).toBe(400);
    expect((await body(bad)).errorMsg).toMatch(/start/);
  });
});

describe("fromEarliest on raw reads (0.18+)", () => {
  it("reads everything the metric holds instead of the last 8 hours (GaugesITest fromEarliestQueryGaugeData)", async () => {
    const start = Date.now() - 10 * HOUR + 10 * MIN;
    const values = [100.1, 200.2, 300.3, 400.4, 500.5, 600.6];
    await post(`${M}/gauges/G1000/raw`, [
      ...values.map((value, i) => ({ timestamp: start + i * HOUR, value })),
      { timestamp: Date.now() + 6 * HOUR, value: 750.7 },
    ]);
    const recent = await body(await get(`${M}/gauges/G1000/raw?order=asc`));
    expect(recent.map((p: { value: number }) => p.value)).toEqual([300.3, 400.4, 500.5, 600.6]);
    const all = await body(await get(`${M}/gauges/G1000/raw?fromEarliest=true&order=asc`));
    expect(all).toEqual(values.map((value, i) => ({ timestamp: start + i * HOUR, value })));
    const q = await body(await post(`${M}/gauges/raw/query`, { ids: ["G1000"], fromEarliest: "true", order: "ASC", limit: 2 }));
    expect(q).toEqual([{ id: "G1000", data: values.slice(0, 2).map((value, i) => ({ timestamp: start + i * HOUR, value })) }]);
    const both = await get(`${M}/gauges/G1000/raw?fromEarliest=true&start=${start}`);
    expect(both.status).toBe(400);
    expect((await body(both)).errorMsg).toBe("fromEarliest can only be used without start & end");
    expect((await get(`${M}/gauges/nothing-here/raw?fromEarliest=true`)).status).toBe(204);
  });
});

describe("POST /metrics/stats/query kinds and batches", () => {
  const base = Date.now() - HOUR;
  beforeAll(async () => {
    // MetricsITest batchQueriesForGaugesAndCounterRates, shifted from t = 100…500 to recent times.
    const t = (i: number) => base + i * 100;
    await post(
      `${M}/gauges`,
      { id: "G1", tags: { x: 1, y: 1, z: 1 } },
      "sq",
    );
    await post(`${M}/gauges`, { id: "G3", tags: { x: 2, y: 3, z: 1 } }, "sq");
    await post(`${M}/counters`, { id: "C2", tags: { x: 1, y: 2, z: 1 } }, "sq");
    await post(`${M}/counters`, { id: "C3", tags: { x: 2, y: 3, z: 1 } }, "sq");
    await post(`${M}/counters`, { id: "C1", tags: { x: 1, y: 1, z: 3 } }, "sq");
    await post(
      `${M}/metrics/raw`,
      {
        gauges: [
          { id: "G1", data: [1.23, 3.45, 5.34, 2.22, 5.22].map((value, i) => ({ timestamp: t(i + 1), value })) },
          { id: "G3", data: [4.45, 5.55, 4.44, 3.33, 3.77].map((value, i) => ({ timestamp: t(i + 1), value })) },
        ],
        counters: [
          { id: "C1", data: [12, 17, 19, 26, 37].map((value, i) => ({ timestamp: t(i + 1), value })) },
          { id: "C2", data: [41, 49, 64, 71, 95].map((value, i) => ({ timestamp: t(i + 1), value })) },
          { id: "C3", data: [28, 35, 42, 49, 59].map((value, i) => ({ timestamp: t(i + 1), value })) },
        ],
      },
      "sq",
    );
  });

  it("answers each named query of a batch as the single query would", async () => {
    const q1 = { metrics: { gauge: ["G1", "G3"] }, buckets: 2, start: base + 200, end: base + 500 };
    const q2 = { tags: "z = 1", types: ["counter_rate"], buckets: 2, start: base + 200, end: base + 500 };
    const res = await post(`${M}/metrics/stats/batch/query`, { q1, q2 }, "sq");
    expect(res.status).toBe(200);
    const b = await body(res);
    expect(b.q1).toEqual(await body(await post(`${M}/metrics/stats/query`, q1, "sq")));
    expect(b.q2).toEqual(await body(await post(`${M}/metrics/stats/query`, q2, "sq")));
    // q1: two 150 ms buckets [200, 350) and [350, 500) of G1: {3.45, 5.34} and {2.22}.
    expect(b.q1.gauge.G1[0]).toMatchObject({ start: base + 200, end: base + 350, samples: 2, max: 5.34, min: 3.45 });
    expect(b.q1.gauge.G1[1]).toMatchObject({ samples: 1, min: 2.22 });
    expect(Object.keys(b.q1)).toEqual(["gauge"]);
    // q2: the rates of the counters tagged z = 1 (C2, C3), per minute, from the points in the range:
    // C2 rises 15 from 200 to 300 and 7 from 300 to 400 (upstream's expected 9000 and 4200).
    expect(Object.keys(b.q2)).toEqual(["counter_rate"]);
    expect(Object.keys(b.q2.counter_rate).sort()).toEqual(["C2", "C3"]);
    expect(b.q2.counter_rate.C2[0]).toMatchObject({ start: base + 200, end: base + 350, min: 9000, max: 9000, samples: 1 });
    expect(b.q2.counter_rate.C2[1]).toMatchObject({ min: 4200, max: 4200, samples: 1 });
  });

  it("gauge_rate and counter_rate in types replace, or with their plain type add, the stats of the ids", async () => {
    const range = { start: base, end: base + 1000, buckets: 1 };
    const rateOnly = await body(await post(`${M}/metrics/stats/query`, { ...range, metrics: { gauge: ["G1"], counter: ["C1"] }, types: ["gauge_rate", "counter_rate"] }, "sq"));
    expect(Object.keys(rateOnly).sort()).toEqual(["counter_rate", "gauge_rate"]);
    const both = await body(await post(`${M}/metrics/stats/query`, { ...range, metrics: { counter: ["C1"] }, types: ["counter", "counter_rate"] }, "sq"));
    expect(Object.keys(both).sort()).toEqual(["counter", "counter_rate"]);
    expect(both.counter.C1[0]).toMatchObject({ min: 12, max: 37, samples: 5 });
    // C1 rises by 5, 2, 7, 11 per 100 ms: 3000, 1200, 4200, 6600 per minute.
    expect(both.counter_rate.C1[0]).toMatchObject({ min: 1200, max: 6600, samples: 4 });
  });

  it("answers 400 before reading when a query lacks its selection or bucket parameter, or names an unknown kind", async () => {
    for (const q of [{ buckets: 1 }, { metrics: { gauge: ["G1"] } }, { metrics: { gauge: ["G1"] }, buckets: 1, types: ["gauges"] }]) {
      const res = await post(`${M}/metrics/stats/query`, q, "sq");
      expect(res.status, JSON.stringify(q)).toBe(400);
      const batch = await post(`${M}/metrics/stats/batch/query`, { ok: { metrics: { gauge: ["G1"] }, buckets: 1 }, bad: q }, "sq");
      expect(batch.status, JSON.stringify(q)).toBe(400);
    }
  });
});

describe("stats over a range without data", () => {
  it("answer 200 with every bucket empty; 204 only for a metric that does not exist or fromEarliest without data", async () => {
    await post(`${M}/gauges`, { id: "quiet" }, "empty");
    // One clock reading: two could differ by a millisecond, and a range of 10,001 ms holds six 2 s buckets.
    const now = Date.now();
    const res = await get(`${M}/gauges/quiet/stats?bucketDuration=2s&start=${now - 10_000}&end=${now}`, "empty");
    expect(res.status).toBe(200);
    const b = await body(res);
    expect(b).toHaveLength(5);
    for (const p of b) expect(p).toEqual({ start: p.start, end: p.end, empty: true });
    expect((await get(`${M}/gauges/quiet/stats?bucketDuration=1h&fromEarliest=true`, "empty")).status).toBe(204);
    expect((await get(`${M}/gauges/never-created/stats?buckets=5`, "empty")).status).toBe(204);
    // Several metrics: 200 with empty buckets once one matches, 204 when none does.
    await post(`${M}/gauges`, { id: "quiet2", tags: { k: "v" } }, "empty");
    expect((await get(`${M}/gauges/stats?tags=k:v&buckets=3`, "empty")).status).toBe(200);
    expect((await get(`${M}/gauges/stats?tags=k:nothing&buckets=3`, "empty")).status).toBe(204);
  });
});

describe("availability: the admin value (0.2x)", () => {
  it("is written, read back and kept apart by distinct (the Ruby client's recording)", async () => {
    await post(`${M}/availability/a4/raw`, [
      { timestamp: Date.now() - 4000, value: "up" },
      { timestamp: Date.now() - 3000, value: "down" },
      { timestamp: Date.now() - 2000, value: "ADMIN" },
      { timestamp: Date.now() - 1000, value: "admin" },
    ]);
    const raw = await body(await get(`${M}/availability/a4/raw?distinct=true&order=ASC`));
    expect(raw.map((p: { value: string }) => p.value)).toEqual(["up", "down", "admin"]);
    const stats = await body(await get(`${M}/availability/a4/stats?buckets=1&start=${Date.now() - 5000}`));
    expect(stats[0].adminDuration).toBeGreaterThan(0);
    expect(stats[0].notUpCount).toBe(1);
  });
});

describe("DELETE /tenants/{id} (0.2x)", () => {
  it("removes the tenant with its metrics and points; an unknown tenant is no error (TenantITest)", async () => {
    await col.req(`${M}/tenants`, { method: "POST", json: { id: "doomed", retentions: { gauge: 45 } }, tenant: null });
    await post(`${M}/gauges/G1/raw`, [{ timestamp: Date.now() - 1000, value: 1 }], "doomed");
    expect((await col.req(`${M}/tenants/doomed`, { method: "DELETE", tenant: null })).status).toBe(200);
    expect((await post(`${M}/gauges/raw/query`, { ids: ["G1"] }, "doomed")).status).toBe(204);
    expect((await get(`${M}/metrics`, "doomed")).status).toBe(204);
    const tenants = await body(await col.req(`${M}/tenants`, { tenant: null }));
    expect(tenants.find((t: { id: string }) => t.id === "doomed")).toBeUndefined();
    expect((await col.req(`${M}/tenants/never-was`, { method: "DELETE", tenant: null })).status).toBe(200);
    // Writing again later starts afresh.
    await post(`${M}/gauges/G1/raw`, [{ timestamp: Date.now() - 500, value: 2 }], "doomed");
    expect(await body(await get(`${M}/gauges/G1/raw`, "doomed"))).toEqual([{ timestamp: expect.any(Number), value: 2 }]);
  });
});
