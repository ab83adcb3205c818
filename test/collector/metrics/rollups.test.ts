/**
 * The rollup tiers seen from outside, through a real collector (SQLite, and PostgreSQL in the
 * "postgres" project): points written over HTTP are sealed and rolled up in the background,
 * long-range stats and PromQL answers say which resolution they read (Outpost-Resolution), the
 * self-metrics show the roller's work, and a wrong --rollup-tiers is refused in one line.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateCollectorOptions } from "../../../collector/config.ts";
import { DAY_MS } from "../../../src/metrics/model.ts";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";
import { waitFor } from "../../helpers/ports.ts";

const T0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 20 * DAY_MS;
const DAYS = 4;
const MIN = 60_000;

let c: TestCollector;
beforeAll(async () => {
  c = await startTestCollector({ "self-metrics-interval": 0 });
  const n = DAYS * 1440;
  const gauge = Array.from({ length: n }, (_, i) => ({ timestamp: T0 + i * MIN, value: (i % 60) + 0.5 }));
  const counter = Array.from({ length: n }, (_, i) => ({ timestamp: T0 + i * MIN, value: i }));
  for (let k = 0; k < n; k += 2000) {
    expect((await c.req("/svc/metrics/gauges/g/raw", { method: "POST", json: gauge.slice(k, k + 2000) })).status).toBe(200);
    expect((await c.req("/svc/metrics/counters/c/raw", { method: "POST", json: counter.slice(k, k + 2000) })).status).toBe(200);
  }
  await c.req("/svc/metrics/counters/c/tags", { method: "PUT", json: { metric: "c" } });
  // Sealed (1,024 points or more per head) and rolled up by the background task.
  await waitFor(
    "the first days rolled up",
    async () => {
      const text = await (await c.req("/metrics", { tenant: "_outpost" })).text();
      const rolled = Number(/^outpost_collector_rollup_chunks_total (\d+)/m.exec(text)?.[1] ?? 0);
      const pending = Number(/^outpost_collector_rollup_pending_chunks (\d+)/m.exec(text)?.[1] ?? 1);
      return rolled >= 8 && pending === 0 ? true : undefined;
    },
    30_000,
    200,
  );
}, 60_000);
afterAll(() => c?.close());

describe("rollup tiers over HTTP", () => {
  it("answers day-aligned stats from the daily tier, with the raw points' numbers, and says so", async () => {
    const res = await c.req(`/svc/metrics/gauges/g/stats?start=${T0}&end=${T0 + 2 * DAY_MS}&bucketDuration=1d`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Outpost-Resolution")).toBe("1d");
    const buckets = await body(res);
    expect(buckets).toHaveLength(2);
    // 1,440 points a day of (i % 60) + 0.5: 24 times 0.5 … 59.5.
    expect(buckets[0]).toMatchObject({ start: T0, end: T0 + DAY_MS, min: 0.5, max: 59.5, samples: 1440, sum: 24 * (60 * 30), avg: 30, empty: false });
    // The median from the sketch: within 1 % of the exact 30.
    expect(Math.abs(buckets[0].median - 30)).toBeLessThanOrEqual(0.3);
    // Asked for raw points (to compare): the same numbers, the P² median.
    const raw = await c.req(`/svc/metrics/gauges/g/stats?start=${T0}&end=${T0 + 2 * DAY_MS}&bucketDuration=1d`, { headers: { "Outpost-Resolution": "raw" } });
    expect(raw.headers.get("Outpost-Resolution")).toBe("raw");
    const rawBuckets = await body(raw);
    expect(rawBuckets[0]).toMatchObject({ min: 0.5, max: 59.5, samples: 1440, sum: 24 * (60 * 30) });
    expect(rawBuckets[0].median).not.toBe(buckets[0].median);
  });

  it("reads raw points where a range is not on the tiers' grid, and the stored rows inside it", async () => {
    const res = await c.req(`/svc/metrics/gauges/g/stats?start=${T0 + 30_000}&end=${T0 + DAY_MS + 30_000}&buckets=2`);
    expect(res.headers.get("Outpost-Resolution")).toMatch(/^(1h,)?5m,raw$/);
    const [a, b] = await body(res);
    expect(a.samples + b.samples).toBe(1440);
  });

  it("answers a counter's rates and PromQL increase over days from the tiers", async () => {
    const rates = await c.req(`/svc/metrics/counters/c/rate/stats?start=${T0}&end=${T0 + 2 * DAY_MS}&bucketDuration=1d`);
    expect(rates.headers.get("Outpost-Resolution")).toBe("1d");
    expect(await body(rates)).toMatchObject([{ min: 1, max: 1, samples: 1439 }, { min: 1, max: 1, samples: 1440 }]);
    const q = new URLSearchParams({ query: "increase(c[1d])", start: String((T0 + DAY_MS) / 1000), end: String((T0 + 3 * DAY_MS) / 1000), step: "86400" });
    const res = await c.req(`/prometheus/t1/api/v1/query_range?${q}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("Outpost-Resolution")).toBe("1d");
    const r = await body(res);
    // 1,440 samples a day, one a minute, each 1 more: extrapolated to the window, 1,440 a day.
    const values = r.data.result[0].values.map((v: [number, string]) => Number(v[1]));
    expect(values).toHaveLength(3);
    for (const v of values) expect(v).toBeCloseTo(1440, 9);
  });

  it("says raw for buckets shorter than the finest tier's, read from raw points", async () => {
    const start = T0 + 10 * MIN + 7000;
    const res = await c.req(`/svc/metrics/gauges/g/stats?start=${start}&end=${start + 10 * MIN}&buckets=2`);
    expect(res.headers.get("Outpost-Resolution")).toBe("raw");
    // On the five-minute grid the same length reads the finest tier.
    const aligned = await c.req(`/svc/metrics/gauges/g/stats?start=${T0 + 10 * MIN}&end=${T0 + 20 * MIN}&buckets=2`);
    expect(aligned.headers.get("Outpost-Resolution")).toBe("5m");
  });
});

describe("--rollup-tiers", () => {
  it("refuses a mistake in one line", () => {
    expect(() => validateCollectorOptions({ "rollup-tiers": ["5m:365d", "7m:400d"] })).toThrow("--rollup-tiers: step 7m is not a multiple of the finer step 5m");
    expect(() => validateCollectorOptions({ "rollup-tiers": ["1h"] })).toThrow('--rollup-tiers: "1h" is not STEP:RETENTION (e.g. 5m:365d)');
    expect(() => validateCollectorOptions({ "rollup-tiers": ["5m:1m"] })).toThrow("--rollup-tiers: retention 1m of tier 5m is shorter than its step");
    expect(() => validateCollectorOptions({ "rollup-tiers": ["none"] })).not.toThrow();
  });
});
