/**
 * The Prometheus HTTP API of a real collector over HTTP: envelopes, error types, label mapping
 * (tags → labels, `metric` tag → __name__), availability as 1/0, tenants kept apart.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";

let c: TestCollector;
/** Within the default retention: an hour ago, on a whole minute. */
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;

async function write(tenant: string, path: string, json: unknown): Promise<void> {
  const r = await c.req(path, { method: "POST", tenant, json });
  expect(r.status).toBe(200);
}

beforeAll(async () => {
  c = await startTestCollector();
  // Two hosts' received bytes as the agent writes them: counters with metric/feed/interface tags.
  for (const feed of ["edge1", "edge2"]) {
    const id = `${feed}:network_receive_bytes_total:eth0`;
    await write("acme", `/svc/metrics/counters/${encodeURIComponent(id)}/tags`, { feed, metric: "network_receive_bytes_total", interface: "eth0" }).catch(() => {});
    const tags = await c.req(`/svc/metrics/counters/${encodeURIComponent(id)}/tags`, { method: "PUT", tenant: "acme", json: { feed, metric: "network_receive_bytes_total", interface: "eth0" } });
    expect(tags.status).toBe(200);
    await write("acme", "/svc/metrics/counters/raw", [
      { id, data: Array.from({ length: 31 }, (_, i) => ({ timestamp: T0 + i * 10_000, value: (feed === "edge1" ? 100 : 50) * i })) },
    ]);
  }
  await write("acme", "/svc/metrics/gauges/raw", [{ id: "app.latency", data: [{ timestamp: T0, value: 1.5 }, { timestamp: T0 + 60_000, value: 2.5 }] }]);
  await write("acme", "/svc/metrics/availability/raw", [
    { id: "web", data: [{ timestamp: T0, value: "up" }, { timestamp: T0 + 10_000, value: "down" }, { timestamp: T0 + 20_000, value: "unknown" }] },
  ]);
  await write("acme", "/svc/metrics/strings/raw", [{ id: "build", data: [{ timestamp: T0, value: "v1" }] }]);
  await write("other", "/svc/metrics/gauges/raw", [{ id: "secret", data: [{ timestamp: T0, value: 42 }] }]);
});
afterAll(() => c.close());

const q = (tenantPath: string, params: Record<string, string>) => c.req(`${tenantPath}?${new URLSearchParams(params)}`, { tenant: null });

describe("query", () => {
  test("an instant query by the per-tenant prefix, in Prometheus' envelope", async () => {
    const r = await q("/prometheus/acme/api/v1/query", { query: "sum by (feed) (rate(network_receive_bytes_total[1m]))", time: String((T0 + 300_000) / 1000) });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(await body(r)).toEqual({
      status: "success",
      data: {
        resultType: "vector",
        result: [
          { metric: { feed: "edge1" }, value: [(T0 + 300_000) / 1000, "10"] },
          { metric: { feed: "edge2" }, value: [(T0 + 300_000) / 1000, "5"] },
        ],
      },
    });
  });

  test("a range query: every step, series sorted by labels, timestamps in seconds", async () => {
    const r = await q("/prometheus/acme/api/v1/query_range", { query: "app.latency", start: String(T0 / 1000), end: String((T0 + 90_000) / 1000), step: "30" });
    expect(r.status).toBe(400);
    const ok = await q("/prometheus/acme/api/v1/query_range", { query: '{"app.latency"}', start: String(T0 / 1000), end: String((T0 + 90_000) / 1000), step: "30" });
    const b = await body(ok);
    expect(b.data.resultType).toBe("matrix");
    expect(b.data.result).toEqual([
      {
        metric: { __name__: "app.latency" },
        values: [
          [T0 / 1000, "1.5"],
          [T0 / 1000 + 30, "1.5"],
          [T0 / 1000 + 60, "2.5"],
          [T0 / 1000 + 90, "2.5"],
        ],
      },
    ]);
  });

  test("the tenant header selects the tenant on /api/v1 and POST forms work as promtool sends them", async () => {
    const r = await c.req("/api/v1/query", {
      method: "POST",
      tenant: "acme",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ query: "network_receive_bytes_total", time: String((T0 + 300_000) / 1000) }).toString(),
    });
    const b = await body(r);
    expect(b.data.result.map((s: { metric: Record<string, string> }) => s.metric)).toEqual([
      { __name__: "network_receive_bytes_total", feed: "edge1", interface: "eth0" },
      { __name__: "network_receive_bytes_total", feed: "edge2", interface: "eth0" },
    ]);
    expect(b.data.result[0].value[1]).toBe("3000");
  });

  test("availability reads as 1 and 0, unknown as no new sample; strings are not series", async () => {
    const at = (s: number) => q("/prometheus/acme/api/v1/query", { query: "web", time: String(T0 / 1000 + s) }).then(body);
    expect((await at(0)).data.result[0].value[1]).toBe("1");
    expect((await at(10)).data.result[0].value[1]).toBe("0");
    expect((await at(25)).data.result[0].value[1]).toBe("0");
    expect((await at(0)).data.result).toHaveLength(1);
    expect((await q("/prometheus/acme/api/v1/query", { query: "build", time: String(T0 / 1000) }).then(body)).data.result).toEqual([]);
  });

  test("scalars, NaN and infinities are formatted as Prometheus formats them", async () => {
    const s = await q("/prometheus/acme/api/v1/query", { query: "1e-7 * 1", time: "1.5" }).then(body);
    expect(s).toEqual({ status: "success", data: { resultType: "scalar", result: [1.5, "1e-07"] } });
    const inf = await q("/prometheus/acme/api/v1/query", { query: "-1/0", time: "100" }).then(body);
    expect(inf.data.result).toEqual([100, "-Inf"]);
    const nan = await q("/prometheus/acme/api/v1/query", { query: "0/0", time: "100" }).then(body);
    expect(nan.data.result).toEqual([100, "NaN"]);
    const str = await q("/prometheus/acme/api/v1/query", { query: '"hello"', time: "100" }).then(body);
    expect(str.data).toEqual({ resultType: "string", result: [100, "hello"] });
  });

  test("tenants do not see each other", async () => {
    expect((await q("/prometheus/acme/api/v1/query", { query: "secret", time: String(T0 / 1000) }).then(body)).data.result).toEqual([]);
    expect((await q("/prometheus/other/api/v1/query", { query: "secret", time: String(T0 / 1000) }).then(body)).data.result).toHaveLength(1);
  });
});

describe("errors as Prometheus reports them", () => {
  test.each([
    [{ query: "sum(" }, 400, "bad_data", /^invalid parameter "query": 1:5: parse error: /],
    [{ query: "rate(x)" }, 400, "bad_data", /expected type range vector in call to function "rate", got instant vector/],
    [{ query: "1 > 2" }, 400, "bad_data", /comparisons between scalars must use BOOL modifier/],
    [{ query: "x", time: "yesterday" }, 400, "bad_data", /invalid parameter "time": cannot parse "yesterday" to a valid timestamp/],
    [{ query: "{}" }, 400, "bad_data", /vector selector must contain at least one non-empty matcher/],
    [{ query: "holt_winters(x[5m], 0.5, 0.5)" }, 400, "bad_data", /1:1: parse error: unknown function with name "holt_winters"/],
    // Valid PromQL that Outpost does not evaluate: 501, not the query's fault.
    [{ query: "mad_over_time(x[5m])" }, 501, "not_implemented", /^1:1: function "mad_over_time" is not supported by Outpost$/],
    [{ query: "limitk(2, x)" }, 501, "not_implemented", /aggregation "limitk" is not supported by Outpost/],
    [{ query: "histogram_count(x)" }, 501, "not_implemented", /function "histogram_count" is not supported by Outpost/],
    [{ query: "x[5m:1m][10m:1m]" }, 400, "bad_data", /^invalid parameter "query": 1:1: parse error: subquery is only allowed on instant vector, got matrix instead$/],
  ])("%j → %i %s", async (params, status, type, msg) => {
    const r = await q("/prometheus/acme/api/v1/query", params as Record<string, string>);
    expect(r.status).toBe(status);
    const b = await body(r);
    expect(b.status).toBe("error");
    expect(b.errorType).toBe(type);
    expect(b.error).toMatch(msg);
    expect(b.errorMsg).toBe(b.error);
  });

  test("range query parameters", async () => {
    const bad = async (params: Record<string, string>) => body(await q("/prometheus/acme/api/v1/query_range", { query: "up", ...params }));
    expect((await bad({ start: "10", end: "5", step: "1" })).error).toMatch(/end timestamp must not be before start time/);
    expect((await bad({ start: "0", end: "5", step: "0" })).error).toMatch(/zero or negative query resolution step widths are not accepted/);
    expect((await bad({ start: "0", end: "100000", step: "1" })).error).toMatch(/exceeded maximum resolution of 11,000 points per timeseries/);
    expect((await bad({ start: "0", end: "5" })).error).toMatch(/invalid parameter "step"/);
    // Refused before evaluation, as Prometheus does (checked against it in test/e2e/promql-reference.test.ts).
    for (const query of ["web[5m]", "web[5m:1m]"]) {
      const r = await q("/prometheus/acme/api/v1/query_range", { query, start: "0", end: "5", step: "1" });
      expect(r.status).toBe(400);
      expect(await body(r)).toMatchObject({ errorType: "bad_data", error: 'invalid parameter "query": invalid expression type "range vector" for range query, must be Scalar or instant Vector' });
    }
  });

  test("a request without a tenant is refused", async () => {
    const r = await c.req("/api/v1/query?query=up", { tenant: null });
    expect(r.status).toBe(400);
    expect((await body(r)).errorType).toBe("bad_data");
  });

  test("execution errors are 422", async () => {
    const r = await q("/prometheus/acme/api/v1/query", { query: "network_receive_bytes_total + on(interface) network_receive_bytes_total", time: String((T0 + 300_000) / 1000) });
    expect(r.status).toBe(422);
    expect((await body(r)).errorType).toBe("execution");
  });
});

describe("discovery", () => {
  test("series, labels, label values, metadata, buildinfo", async () => {
    const series = await body(await q("/prometheus/acme/api/v1/series", { "match[]": '{__name__=~"network.*", feed="edge2"}' }));
    expect(series).toEqual({ status: "success", data: [{ __name__: "network_receive_bytes_total", feed: "edge2", interface: "eth0" }] });
    const labels = await body(await q("/prometheus/acme/api/v1/labels", {}));
    expect(labels.data).toEqual(["__name__", "feed", "interface"]);
    const names = await body(await q("/prometheus/acme/api/v1/label/__name__/values", {}));
    expect(names.data).toEqual(["app.latency", "network_receive_bytes_total", "web"]);
    const feeds = await body(await q("/prometheus/acme/api/v1/label/feed/values", { "match[]": "network_receive_bytes_total" }));
    expect(feeds.data).toEqual(["edge1", "edge2"]);
    const meta = await body(await q("/prometheus/acme/api/v1/metadata", {}));
    expect(meta.data.network_receive_bytes_total).toEqual([{ type: "counter", help: "", unit: "" }]);
    expect(meta.data["app.latency"]).toEqual([{ type: "gauge", help: "", unit: "" }]);
    const build = await body(await q("/prometheus/acme/api/v1/status/buildinfo", {}));
    expect(build.status).toBe("success");
    expect(build.data.version).toMatch(/^\d+\.\d+\.\d+$/);
  });
  test("series needs match[]", async () => {
    const r = await q("/prometheus/acme/api/v1/series", {});
    expect(r.status).toBe(400);
    expect((await body(r)).error).toBe("no match[] parameter provided");
  });
});
