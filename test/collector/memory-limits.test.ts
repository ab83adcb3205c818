/**
 * --memory-limit and --memory-target on a real collector (this test process is its process, so
 * its resident size is far above the 1 MB set here): above the limit every write interface
 * refuses bodies with 503, Retry-After and an errorMsg naming the option, while reads go on;
 * above the target, garbage is collected as bodies arrive and counted in /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { REMOTE_WRITE_HEADERS, remoteWriteBody } from "../helpers/remote-write.ts";

const MB = 1024 * 1024;
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
const gaugeWrite = (id: string, n: number) =>
  JSON.stringify([{ id, data: Array.from({ length: n }, (_, i) => ({ timestamp: T0 + i * 100, value: i / 7 })) }]);

describe("--memory-limit", () => {
  let col: TestCollector;
  beforeAll(async () => {
    col = await startTestCollector({ "memory-limit": MB, "memory-target": 0 });
  });
  afterAll(() => col.close());

  it("refuses Hawkular, Influx and remote writes with 503 and Retry-After, and still answers reads", async () => {
    const json = { "Content-Type": "application/json" };
    const hawkular = await col.req("/svc/metrics/gauges/raw", { method: "POST", body: gaugeWrite("m.a", 10), headers: json });
    expect(hawkular.status).toBe(503);
    expect(hawkular.headers.get("Retry-After")).toBe("1");
    expect((await body(hawkular)).errorMsg).toMatch(/^The collector's memory \(\d+ MB\) is above --memory-limit \(1 MB\); retry in 1 s$/);
    const one = await col.req("/svc/metrics/gauges/m.b/raw", { method: "POST", body: JSON.stringify([{ timestamp: T0, value: 1 }]), headers: json });
    expect(one.status).toBe(503);

    const influx = await col.req("/write?db=x", { method: "POST", tenant: null, headers: { "Svc-Tenant": "inf" }, body: `mem used=5 ${T0}000000` });
    expect(influx.status).toBe(503);
    expect(influx.headers.get("Retry-After")).toBe("1");
    expect((await body(influx)).errorMsg).toMatch(/--memory-limit/);

    const series = [{ labels: { __name__: "up", job: "j" }, samples: [[T0, 1]] as [number, number][] }];
    const remote = await col.req("/prometheus/rw/api/v1/write", { method: "POST", tenant: null, headers: REMOTE_WRITE_HEADERS, body: remoteWriteBody(series) });
    expect(remote.status).toBe(503);
    expect(remote.headers.get("Retry-After")).toBe("1");

    // Nothing was written, and reads are not refused.
    const read = await col.req("/svc/metrics/gauges/m.a/raw?start=0");
    expect(read.status).toBe(204);
    expect((await fetch(`${col.url}/metrics`)).status).toBe(200);
    expect(await (await fetch(`${col.url}/metrics`)).text()).toMatch(/^outpost_collector_memory_refusals_total [1-9]\d*$/m);
  });
});

describe("--memory-target", () => {
  let col: TestCollector;
  beforeAll(async () => {
    col = await startTestCollector({ "memory-target": MB });
  });
  afterAll(() => col.close());

  it("collects garbage while bodies arrive above it, and every write is stored", async () => {
    const before = await (await fetch(`${col.url}/metrics`)).text();
    expect(before).toMatch(/^outpost_collector_memory_collections_total 0$/m);
    // 20 bodies of about 1 MB: over the 16 MB between two collections.
    const text = gaugeWrite("m.big", 20_000);
    expect(text.length).toBeGreaterThan(MB);
    for (let i = 0; i < 20; i++) {
      const res = await col.req("/svc/metrics/gauges/raw", { method: "POST", body: text, headers: { "Content-Type": "application/json" } });
      expect(res.status).toBe(200);
    }
    const after = await (await fetch(`${col.url}/metrics`)).text();
    expect(Number(/^outpost_collector_memory_collections_total (\d+)$/m.exec(after)?.[1])).toBeGreaterThanOrEqual(1);
    const back = (await body(await col.req("/svc/metrics/gauges/m.big/raw?start=0"))) as unknown[];
    expect(back.length).toBe(20_000);
  });
});
