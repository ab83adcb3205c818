import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";

/**
 * The requests real clients send, as their sources and tests show them, and what they read back:
 * hawkular-client-go (metrics/client_test.go), the Grafana Hawkular datasource (queryProcessor.js,
 * datasource.js, capabilities.js) and hawkular-client-ruby (its recordings against 0.28.2). The
 * Python client's own suite was also run unmodified against a collector (docs/compatibility.md).
 */

let col: TestCollector;
beforeAll(async () => {
  col = await startTestCollector();
});
afterAll(async () => {
  await col.close();
});

const H = "/hawkular/metrics";
const send = (method: string, path: string, tenant: string, json?: unknown) =>
  col.req(`${H}${path}`, { method, tenant: null, headers: { "Hawkular-Tenant": tenant }, ...(json === undefined ? {} : { json }) });
// biome-ignore lint/suspicious/noExplicitAny: test assertions walk arbitrary JSON
async function ok(res: Response, status = 200): Promise<any> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return text === "" ? undefined : JSON.parse(text);
}

/** The Go client's URLEscape: query escaping with spaces as %20. */
const goEscape = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);

describe("hawkular-client-go", () => {
  it("TestTenant: a TenantDefinition with retentions null, and one with retentions", async () => {
    await ok(await send("POST", "/tenants", "go", { id: "go-A", retentions: null }), 201);
    await ok(await send("POST", "/tenants", "go", { id: "go-B", retentions: { gauge: 5 } }), 201);
    const tenants = await ok(await send("GET", "/tenants", "go"));
    expect(tenants.find((t: { id: string }) => t.id === "go-B").retentions.gauge).toBe(5);
    expect(tenants.find((t: { id: string }) => t.id === "go-A")).toEqual({ id: "go-A" });
  });

  it("TestCreate and TestTagsModification: ids with slashes and spaces, tag names with spaces and plus signs", async () => {
    await ok(await send("POST", "/gauges", "go", { type: "gauge", id: "test.metric.create.numeric.1" }), 201);
    expect((await send("POST", "/gauges", "go", { type: "gauge", id: "test.metric.create.numeric.1" })).status).toBe(409);
    await ok(await send("POST", "/availability", "go", { type: "availability", id: "test/metric/create/availability/1", dataRetention: 12 }), 201);
    await ok(await send("POST", "/gauges", "go", { type: "gauge", id: "test metric whitespace 1" }), 201);
    const avail = await ok(await send("GET", "/metrics?type=availability", "go"));
    expect(avail).toEqual([{ tenantId: "go", id: "test/metric/create/availability/1", type: "availability", dataRetention: 12 }]);

    const id = goEscape("test/tags/modify/1");
    await ok(await send("POST", "/gauges", "go", { type: "gauge", id: "test/tags/modify/1" }), 201);
    const tags = { ab: "ac", "host value": "test whitespace", "plus+is+valid+too": "plus+value" };
    await ok(await send("PUT", `/gauges/${id}/tags`, "go", tags));
    expect(await ok(await send("GET", `/gauges/${id}/tags`, "go"))).toEqual(tags);
    await ok(await send("DELETE", `/gauges/${id}/tags/${Object.keys(tags).map(goEscape).join(",")}`, "go"));
    expect((await send("GET", `/gauges/${id}/tags`, "go")).status).toBe(204);
  });

  it("TestAddMixedMulti, TestEscapingDatapoints and TestCheckErrors", async () => {
    const t = Date.now();
    await ok(await send("POST", "/counters/raw", "go", [{ id: "test whitespace counter 1", data: [{ timestamp: t, value: 2 }] }, { id: "test+plus+counter+1", data: [{ timestamp: t, value: 2 }] }]));
    await ok(await send("POST", "/gauges/raw", "go", [{ id: "test.multi.numeric.2", data: [{ timestamp: t, value: 1.45 }, { timestamp: t - 1000, value: 4.56 }] }]));
    await ok(await send("POST", "/strings/raw", "go", [{ id: "test.multi.string.3", data: [{ timestamp: t - 1000, value: "stringType_test" }] }]));
    for (const name of ["test whitespace counter 1", "test+plus+counter+1"]) {
      expect(await ok(await send("GET", `/counters/${goEscape(name)}/raw`, "go"))).toEqual([{ timestamp: t, value: 2 }]);
    }
    expect((await ok(await send("GET", "/gauges/test.multi.numeric.2/raw", "go"))).map((p: { value: number }) => p.value)).toEqual([1.45, 4.56]);
    expect(await ok(await send("GET", "/strings/test.multi.string.3/raw", "go"))).toEqual([{ timestamp: t - 1000, value: "stringType_test" }]);
    const bad = await send("POST", "/gauges/raw", "go", [{ id: "test.number.as.string", data: [{ timestamp: t, value: "notFloat" }] }]);
    expect(bad.status).toBe(400);
    expect((await body(bad)).errorMsg).toBeTruthy();
    expect((await send("GET", "/gauges/test.number.as.string/raw", "go")).status).toBe(204);
  });

  it("TestBuckets: quantile 90.0 and 99.0 as asked; one-second buckets over the whole range", async () => {
    const tags = { units: "bytes", env: "unittest" };
    await ok(await send("POST", "/gauges", "go-b", { type: "gauge", id: "test.buckets.1", tags }), 201);
    let ts = Date.now();
    const data = [];
    for (let i = 0; i < 10; i++) data.push({ timestamp: (ts -= 1000), value: 1.45 * i });
    await ok(await send("POST", "/gauges/raw", "go-b", [{ id: "test.buckets.1", data }]));
    const filter = Object.entries(tags).map(([k, v]) => `${k}:${v}`).join(",");
    const bp = await ok(await send("GET", `/gauges/stats?tags=${filter}&buckets=1&percentiles=90,99`, "go-b"));
    expect(bp).toHaveLength(1);
    expect(bp[0].samples).toBe(10);
    expect(bp[0].percentiles.map((p: { quantile: number }) => p.quantile)).toEqual([90, 99]);
    const seconds = await ok(await send("GET", `/gauges/stats?tags=${filter}&bucketDuration=1000ms&start=${ts}`, "go-b"));
    expect(seconds.length).toBeGreaterThanOrEqual(10);
    expect(seconds.length).toBeLessThanOrEqual(11);
  });

  it("TestTagQueries: a regex in a tag list, in GET /metrics and in the escaped /metrics/tags path", async () => {
    for (let i = 1; i < 10; i++) await ok(await send("POST", "/gauges", "go-t", { type: "gauge", id: `test.tags.host.${i}`, tags: { hostname: `host${i}` } }), 201);
    expect(await ok(await send("GET", "/metrics?tags=hostname:host[123]", "go-t"))).toHaveLength(3);
    const values = await ok(await send("GET", `/metrics/tags/hostname:${goEscape("host[123]")}`, "go-t"));
    expect(Object.keys(values)).toEqual(["hostname"]);
    expect(values.hostname.sort()).toEqual(["host1", "host2", "host3"]);
  });
});

describe("the Grafana datasource", () => {
  const t0 = Date.now() - 30 * 60_000;
  beforeAll(async () => {
    for (const [id, host] of [
      ["cpu.a", "a"],
      ["cpu.b", "b"],
    ]) {
      await ok(await send("POST", "/gauges", "gf", { id, tags: { host, app: "web" } }), 201);
      await ok(await send("POST", `/gauges/${id}/raw`, "gf", Array.from({ length: 30 }, (_, i) => ({ timestamp: t0 + i * 60_000, value: i + (host === "b" ? 100 : 0) }))));
    }
  });

  it("reads the version without a tenant and enables its full mode (0.24+: tag query language)", async () => {
    const version = (await ok(await col.req(`${H}/status`, { tenant: null })))["Implementation-Version"];
    const m = /([0-9]+)\.([0-9]+)\.(.+)/.exec(version)!;
    expect(Number(m[1]) === 0 && Number(m[2]) >= 24).toBe(true);
  });

  it("queries raw points by ids, ascending, and the latest point of the last five minutes (singlestat 'live')", async () => {
    const res = await ok(await send("POST", "/gauges/raw/query", "gf", { start: t0, end: Date.now(), order: "ASC", ids: ["cpu.a"] }));
    expect(res[0].id).toBe("cpu.a");
    expect(res[0].data[0]).toEqual({ timestamp: t0, value: 0 });
    const rate = await ok(await send("POST", "/gauges/rate/query", "gf", { start: t0, end: Date.now(), order: "ASC", tags: "app = 'web'" }));
    expect(rate.map((s: { id: string }) => s.id).sort()).toEqual(["cpu.a", "cpu.b"]);
    expect(rate[0].data[0].value).toBe(1);
    const start = Date.now() - 300_000;
    const live = await ok(await send("POST", "/gauges/raw/query", "gf", { ids: ["cpu.a", "cpu.b"], limit: 1, start }));
    // One point per series (with a limit, a start and no end the order is ascending, as upstream's default).
    expect(live.map((s: { data: unknown[] }) => s.data.length)).toEqual([1, 1]);
    for (const s of live) expect(s.data[0].timestamp).toBeGreaterThanOrEqual(start);
  });

  it("merged stats with percentiles: it finds a percentile by its quantile's text ('90' in quantile.toString())", async () => {
    const res = await ok(await send("POST", "/gauges/stats/query", "gf", { start: t0, end: Date.now(), metrics: ["cpu.a", "cpu.b"], buckets: 60, stacked: true, percentiles: "90,99" }));
    expect(res).toHaveLength(60);
    const full = res.find((b: { empty: boolean }) => !b.empty);
    const findQuantile = (q: string) => full.percentiles.find((p: { quantile: number }) => p.quantile.toString().indexOf(q) >= 0);
    expect(findQuantile("90")).toBeDefined();
    expect(findQuantile("99")).toBeDefined();
    expect(full.samples).toBe(2);
  });

  it("unmerged stats per type and id, by ids or by a tag expression", async () => {
    const byIds = await ok(await send("POST", "/metrics/stats/query", "gf", { start: t0, end: Date.now(), buckets: 60, types: ["gauge"], metrics: { gauge: ["cpu.a"] }, percentiles: "95" }));
    expect(Object.keys(byIds.gauge)).toEqual(["cpu.a"]);
    expect(byIds.gauge["cpu.a"]).toHaveLength(60);
    const byTags = await ok(await send("POST", "/metrics/stats/query", "gf", { start: t0, end: Date.now(), buckets: 60, types: ["gauge"], tags: "host IN ['a', 'b']" }));
    expect(Object.keys(byTags.gauge).sort()).toEqual(["cpu.a", "cpu.b"]);
  });

  it("suggests metrics, tag keys and tag values as its editors ask for them", async () => {
    const suggested = await ok(await send("GET", `/metrics?type=gauge&tags=${encodeURIComponent("host = 'b'")}`, "gf"));
    expect(suggested.map((m: { id: string }) => m.id)).toEqual(["cpu.b"]);
    expect(await ok(await send("GET", "/metrics/tags", "gf"))).toEqual(["app", "host"]);
    const values = await ok(await send("GET", "/gauges/tags/host:*", "gf"));
    expect(values.host.sort()).toEqual(["a", "b"]);
    const flat = await ok(await send("GET", "/metrics/tags/app:*", "gf"));
    expect(flat).toEqual({ app: ["web"] });
  });

  it("reads alert annotations from /alerts/events: ctime, text and status", async () => {
    const alerts = "/hawkular/alerts";
    const req = (method: string, path: string, json?: unknown) => col.req(`${alerts}${path}`, { method, tenant: "gf", ...(json === undefined ? {} : { json }) });
    await ok(await req("POST", "/triggers/trigger", { trigger: { id: "gf-hot", name: "hot", enabled: true }, conditions: [{ type: "THRESHOLD", dataId: "cpu.b", operator: "GT", threshold: 128 }] }));
    await ok(await send("POST", "/gauges/cpu.b/raw", "gf", [{ timestamp: Date.now(), value: 200 }]));
    const start = Date.now() - 60_000;
    let events: { ctime: number; text: string; status: string }[] = [];
    for (let i = 0; i < 100 && events.length === 0; i++) {
      events = await ok(await req("GET", `/events?startTime=${start}&endTime=${Date.now() + 1000}&triggerIds=gf-hot`));
      if (events.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ text: "hot", status: "OPEN", ctime: expect.any(Number) });
  });
});

describe("hawkular-client-ruby (recordings against 0.28.2)", () => {
  it("paths with a trailing slash, definitions with timestamps=true", async () => {
    await ok(await send("POST", "/gauges", "rb", { id: "g1", tags: { myTag: "g1" } }), 201);
    await ok(await send("PUT", "/gauges/g1/tags", "rb", { newTag: "newValue" }));
    const defs = await ok(await send("GET", "/metrics/?tags=myTag:g1&timestamps=true&type=gauge", "rb"));
    expect(defs).toEqual([{ id: "g1", tags: { myTag: "g1", newTag: "newValue" }, dataRetention: 7, type: "gauge", tenantId: "rb" }]);
    const t = Date.now();
    await ok(await send("POST", "/counters/c1/raw", "rb", [{ value: 1, timestamp: t - 30 }, { value: 2, timestamp: t - 20 }, { value: 3, timestamp: t - 10 }]));
    expect(await ok(await send("GET", "/counters/c1/raw/?limit=1&order=DESC", "rb"))).toEqual([{ timestamp: t - 10, value: 3 }]);
    const stats = await ok(await send("GET", `/counters/c1/stats/?buckets=2&end=${t}&start=${t - 40}`, "rb"));
    expect(stats).toHaveLength(2);
  });

  it("stats by tags with nulls, listing metrics without data too; every kind with empty id lists", async () => {
    for (const [type, id] of [
      ["gauges", "m1"],
      ["gauges", "m4"],
    ]) {
      await ok(await send("POST", `/${type}`, "rb2", { id, dataRetention: 90, tags: { miq_metric: true } }), 201);
    }
    await ok(await send("POST", "/metrics/raw", "rb2", { gauges: [{ id: "m1", data: [{ value: 1.1, timestamp: Date.now() - 1000 }] }], counters: [], availabilities: [], strings: [] }));
    const byTags = await ok(await send("POST", "/metrics/stats/query", "rb2", { tags: "miq_metric:true", buckets: 1, bucketDuration: null, start: null, end: null }));
    expect(byTags.gauge.m1[0]).toMatchObject({ min: 1.1, samples: 1 });
    expect(byTags.gauge.m4).toEqual([{ start: expect.any(Number), end: expect.any(Number), empty: true }]);
    const t = Date.now();
    await ok(await send("POST", "/counters/c2/raw", "rb2", [100, 110, 130, 200].map((value, i) => ({ value, timestamp: t - 13 + i * 4 }))));
    const rates = await ok(
      await send("POST", "/metrics/stats/query", "rb2", {
        metrics: { gauge: [], counter: ["c2"], availability: [] },
        start: t - 13,
        end: t + 1,
        bucketDuration: "14ms",
        types: ["gauge", "gauge_rate", "counter", "counter_rate", "availability"],
      }),
    );
    expect(Object.keys(rates).sort()).toEqual(["counter", "counter_rate"]);
    expect(rates.counter.c2[0]).toMatchObject({ min: 100, max: 200, samples: 4 });
    expect(rates.counter_rate.c2[0].samples).toBe(3);
  });

  it("a request without tenant: the errorMsg names Hawkular-Tenant", async () => {
    const res = await col.req(`${H}/counters/c1/raw`, { method: "POST", tenant: null, json: [{ value: 4, timestamp: Date.now() }] });
    expect(res.status).toBe(400);
    expect(await body(res)).toEqual({ errorMsg: "Tenant is not specified. Use 'Hawkular-Tenant' header." });
  });
});
