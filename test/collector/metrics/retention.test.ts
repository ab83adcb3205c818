import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";

/**
 * "dataRetention: days a data point stays after it is stored" (spec): backfills and imports of
 * old points stay readable for their retention from the time they were written. (The expiry
 * itself is driven by the store's clock in test/collector/store/metrics-store.test.ts.)
 */

let col: TestCollector;
let dataDir: string;
beforeAll(async () => {
  col = await startTestCollector();
  dataDir = col.dataDir;
});
afterAll(async () => {
  await col.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const M = "/svc/metrics";
const DAY = 86_400_000;

describe("retention counted from the write", () => {
  const monthAgo = Date.now() - 30 * DAY;

  it("keeps a point written today with a month-old timestamp, and a backfill from 1970 (MetricsITest's t = 100…500)", async () => {
    await col.req(`${M}/gauges`, { method: "POST", json: { id: "backfill", dataRetention: 7 } });
    expect((await col.req(`${M}/gauges/backfill/raw`, { method: "POST", json: [{ timestamp: monthAgo, value: 1.5 }] })).status).toBe(200);
    const raw = await col.req(`${M}/gauges/backfill/raw?start=${monthAgo - DAY}&end=${monthAgo + DAY}`);
    expect(await body(raw)).toEqual([{ timestamp: monthAgo, value: 1.5 }]);
    expect(await body(await col.req(`${M}/gauges/backfill`))).toMatchObject({ minTimestamp: monthAgo, maxTimestamp: monthAgo, dataRetention: 7 });

    await col.req(`${M}/counters/raw`, { method: "POST", json: [{ id: "C2", data: [41, 49, 64, 71, 95].map((value, i) => ({ timestamp: (i + 1) * 100, value })) }] });
    const stats = await body(await col.req(`${M}/metrics/stats/query`, { method: "POST", json: { metrics: { counter: ["C2"] }, types: ["counter_rate"], buckets: 2, start: 200, end: 500 } }));
    expect(stats.counter_rate.C2.map((b: { max: number }) => b.max)).toEqual([9000, 4200]);
  });

  it("lets fromEarliest reach back to the oldest stored point", async () => {
    const all = await body(await col.req(`${M}/gauges/backfill/raw?fromEarliest=true`));
    expect(all).toEqual([{ timestamp: monthAgo, value: 1.5 }]);
    const buckets = await body(await col.req(`${M}/gauges/backfill/stats?fromEarliest=true&bucketDuration=1d`));
    expect(buckets[0]).toMatchObject({ samples: 1, min: 1.5 });
  });

  it("still holds them after a restart", async () => {
    await col.stop(); // keeps the data folder
    col = await startTestCollector({}, dataDir);
    expect(await body(await col.req(`${M}/gauges/backfill/raw?start=${monthAgo - DAY}&end=${monthAgo + DAY}`))).toEqual([{ timestamp: monthAgo, value: 1.5 }]);
    expect((await body(await col.req(`${M}/counters/C2/raw?start=0&end=1000&order=asc`))).map((p: { value: number }) => p.value)).toEqual([41, 49, 64, 71, 95]);
  });
});
