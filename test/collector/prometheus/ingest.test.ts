/**
 * Writes from the Prometheus world into a real collector: remote write (protobuf + snappy) and
 * the Influx line protocol, read back through the Prometheus API and the Hawkular API.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { body, startTestCollector, type TestCollector } from "../../helpers/collector.ts";
import { REMOTE_WRITE_HEADERS, remoteWriteBody } from "../../helpers/remote-write.ts";

let c: TestCollector;
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;

beforeAll(async () => {
  c = await startTestCollector();
});
afterAll(() => c.close());

const post = (path: string, data: Uint8Array | string, headers: Record<string, string> = {}) =>
  c.req(path, { method: "POST", tenant: null, headers, body: data });
const instant = async (tenant: string, query: string, time: number) =>
  (await body(await c.req(`/prometheus/${tenant}/api/v1/query?${new URLSearchParams({ query, time: String(time / 1000) })}`, { tenant: null }))).data.result;

describe("remote write", () => {
  test("samples become series found by both APIs, labels intact", async () => {
    const series = [
      { labels: { __name__: "http_requests_total", job: "api", instance: "a:9100", code: "200" }, samples: [[T0, 1], [T0 + 15_000, 5], [T0 + 30_000, 9]] as [number, number][] },
      { labels: { __name__: "http_requests_total", job: "api", instance: "b:9100", code: "200" }, samples: [[T0, 2], [T0 + 15_000, 2.5]] as [number, number][] },
    ];
    const r = await post("/prometheus/rw/api/v1/write", remoteWriteBody(series), REMOTE_WRITE_HEADERS);
    expect(r.status).toBe(204);
    const res = await instant("rw", "http_requests_total", T0 + 30_000);
    expect(res).toEqual([
      { metric: { __name__: "http_requests_total", code: "200", instance: "a:9100", job: "api" }, value: [(T0 + 30_000) / 1000, "9"] },
      { metric: { __name__: "http_requests_total", code: "200", instance: "b:9100", job: "api" }, value: [(T0 + 30_000) / 1000, "2.5"] },
    ]);
    const id = 'http_requests_total{code="200",instance="a:9100",job="api"}';
    const raw = await body(await c.req(`/svc/metrics/gauges/${encodeURIComponent(id)}/raw?start=${T0}&end=${T0 + 60_000}&order=ASC`, { tenant: "rw" }));
    expect(raw.map((p: { value: number }) => p.value)).toEqual([1, 5, 9]);
    const def = await body(await c.req(`/svc/metrics/gauges/${encodeURIComponent(id)}`, { tenant: "rw" }));
    expect(def.tags).toEqual({ metric: "http_requests_total", job: "api", instance: "a:9100", code: "200" });
  });

  test("writing the same samples again is idempotent; a NaN that is not a staleness marker is skipped", async () => {
    const s = [{ labels: { __name__: "temp", room: "a" }, samples: [[T0, 20], [T0 + 10_000, Number.NaN], [T0 + 20_000, 21]] as [number, number][] }];
    for (let i = 0; i < 2; i++) expect((await post("/prometheus/rw/api/v1/write", remoteWriteBody(s), REMOTE_WRITE_HEADERS)).status).toBe(204);
    const raw = await body(await c.req(`/svc/metrics/gauges/${encodeURIComponent('temp{room="a"}')}/raw?start=${T0}&end=${T0 + 60_000}`, { tenant: "rw" }));
    expect(raw).toHaveLength(2);
    expect(await instant("rw", "count_over_time(temp[1m])", T0 + 20_000)).toEqual([{ metric: { room: "a" }, value: [(T0 + 20_000) / 1000, "2"] }]);
  });

  test("staleness markers are kept: they end the series for PromQL; Hawkular reads, stats and rates never see them", async () => {
    const s = [
      { labels: { __name__: "flaky", job: "a" }, samples: [[T0, 1], [T0 + 15_000, 3], [T0 + 30_000, "stale"], [T0 + 60_000, 7], [T0 + 75_000, "stale"]] as [number, number | "stale"][] },
      { labels: { __name__: "steady", job: "a" }, samples: [[T0, 1], [T0 + 15_000, 3]] as [number, number][] },
    ];
    expect((await post("/prometheus/st/api/v1/write", remoteWriteBody(s), REMOTE_WRITE_HEADERS)).status).toBe(204);
    const value = async (q: string, t: number) => (await instant("st", q, t)).map((r: { value: [number, string] }) => r.value[1]);
    expect(await value("flaky", T0 + 29_000)).toEqual(["3"]);
    expect(await value("flaky", T0 + 30_000)).toEqual([]);
    expect(await value("flaky", T0 + 59_000)).toEqual([]);
    expect(await value("flaky", T0 + 61_000)).toEqual(["7"]);
    expect(await value("flaky", T0 + 200_000)).toEqual([]);
    // Without a marker, a series is seen for the lookback after its last sample.
    expect(await value("steady", T0 + 200_000)).toEqual(["3"]);
    expect(await value("count_over_time(flaky[2m])", T0 + 90_000)).toEqual(["3"]);
    const range = await body(await c.req(`/prometheus/st/api/v1/query_range?${new URLSearchParams({ query: "flaky", start: String(T0 / 1000), end: String((T0 + 90_000) / 1000), step: "15" })}`, { tenant: null }));
    expect(range.data.result[0].values.map((v: [number, string]) => [v[0] - T0 / 1000, v[1]])).toEqual([[0, "1"], [15, "3"], [60, "7"]]);

    const id = encodeURIComponent('flaky{job="a"}');
    const get = async (path: string) => body(await c.req(path, { tenant: "st" }));
    const raw = await get(`/svc/metrics/gauges/${id}/raw?start=${T0}&end=${T0 + 120_000}&order=ASC`);
    expect(raw.map((p: { timestamp: number; value: number }) => [p.timestamp - T0, p.value])).toEqual([[0, 1], [15_000, 3], [60_000, 7]]);
    expect((await get(`/svc/metrics/gauges/${id}/raw?start=${T0}&end=${T0 + 120_000}&order=DESC&limit=1`)).map((p: { value: number }) => p.value)).toEqual([7]);
    const [stats] = await get(`/svc/metrics/gauges/${id}/stats?start=${T0}&end=${T0 + 120_000}&buckets=1`);
    expect({ samples: stats.samples, min: stats.min, max: stats.max, sum: stats.sum }).toEqual({ samples: 3, min: 1, max: 7, sum: 11 });
    // Per minute: 1 → 3 in 15 s, then 3 → 7 in 45 s (the markers are no points between them).
    const rates = await get(`/svc/metrics/gauges/${id}/rate?start=${T0}&end=${T0 + 120_000}&order=ASC`);
    expect(rates.map((p: { timestamp: number }) => p.timestamp - T0)).toEqual([15_000, 60_000]);
    expect(rates[0].value).toBeCloseTo(8, 12);
    expect(rates[1].value).toBeCloseTo(16 / 3, 12);
    const multi = await get(`/svc/metrics/gauges/stats?metrics=${id}&start=${T0}&end=${T0 + 120_000}&buckets=1`);
    expect(multi[0].samples).toBe(3);
  });

  test("the tenant header works at /api/v1/write; tenants stay apart", async () => {
    const s = [{ labels: { __name__: "only_here" }, samples: [[T0, 1]] as [number, number][] }];
    expect((await post("/api/v1/write", remoteWriteBody(s), { ...REMOTE_WRITE_HEADERS, "Svc-Tenant": "rw2" })).status).toBe(204);
    expect(await instant("rw2", "only_here", T0)).toHaveLength(1);
    expect(await instant("rw", "only_here", T0)).toHaveLength(0);
  });

  test("a series written again after its metric was deleted or retagged gets its labels back as tags", async () => {
    // The same label set each time: from the second request on it is known (remote-write-columns.ts).
    const s = (t: number) => [{ labels: { __name__: "kept_tags", zone: "z1" }, samples: [[T0 + t, t]] as [number, number][] }];
    const id = encodeURIComponent('kept_tags{zone="z1"}');
    const tags = async () => (await body(await c.req(`/svc/metrics/gauges/${id}`, { tenant: "rt" }))).tags;
    for (let i = 0; i < 3; i++) expect((await post("/prometheus/rt/api/v1/write", remoteWriteBody(s(i * 1000)), REMOTE_WRITE_HEADERS)).status).toBe(204);
    expect(await tags()).toEqual({ metric: "kept_tags", zone: "z1" });
    expect((await c.req(`/svc/metrics/gauges/${id}`, { method: "DELETE", tenant: "rt" })).status).toBeLessThan(300);
    expect((await post("/prometheus/rt/api/v1/write", remoteWriteBody(s(5000)), REMOTE_WRITE_HEADERS)).status).toBe(204);
    expect(await tags()).toEqual({ metric: "kept_tags", zone: "z1" });
    expect((await c.req(`/svc/metrics/gauges/${id}/tags`, { method: "PUT", tenant: "rt", body: JSON.stringify({ zone: "other" }), headers: { "Content-Type": "application/json" } })).status).toBeLessThan(300);
    expect(await tags()).toEqual({ metric: "kept_tags", zone: "other" });
    expect((await post("/prometheus/rt/api/v1/write", remoteWriteBody(s(6000)), REMOTE_WRITE_HEADERS)).status).toBe(204);
    expect(await tags()).toEqual({ metric: "kept_tags", zone: "z1" });
    // The same series in another tenant is a definition of its own there.
    expect((await post("/prometheus/rt2/api/v1/write", remoteWriteBody(s(7000)), REMOTE_WRITE_HEADERS)).status).toBe(204);
    expect((await body(await c.req(`/svc/metrics/gauges/${id}`, { tenant: "rt2" }))).tags).toEqual({ metric: "kept_tags", zone: "z1" });
  });

  test("the same label sets sent by turns to two tenants, and again after a deletion, land each in its own series", async () => {
    // From the second request on the label sets are known, and the store keeps its handle of each series in them.
    const s = (t: number, v: number) => [
      { labels: { __name__: "turns", k: "a" }, samples: [[T0 + t, v]] as [number, number][] },
      { labels: { __name__: "turns", k: "b" }, samples: [[T0 + t, v + 0.5]] as [number, number][] },
    ];
    for (let i = 0; i < 3; i++) {
      expect((await post("/prometheus/tu1/api/v1/write", remoteWriteBody(s(i * 1000, 10 + i)), REMOTE_WRITE_HEADERS)).status).toBe(204);
      expect((await post("/prometheus/tu2/api/v1/write", remoteWriteBody(s(i * 1000, 20 + i)), REMOTE_WRITE_HEADERS)).status).toBe(204);
    }
    const raw = async (tenant: string, k: string) =>
      (await body(await c.req(`/svc/metrics/gauges/${encodeURIComponent(`turns{k="${k}"}`)}/raw?start=${T0}&end=${T0 + 60_000}&order=ASC`, { tenant }))).map((p: { value: number }) => p.value);
    expect(await raw("tu1", "a")).toEqual([10, 11, 12]);
    expect(await raw("tu1", "b")).toEqual([10.5, 11.5, 12.5]);
    expect(await raw("tu2", "a")).toEqual([20, 21, 22]);
    expect(await raw("tu2", "b")).toEqual([20.5, 21.5, 22.5]);
    expect((await c.req(`/svc/metrics/gauges/${encodeURIComponent('turns{k="a"}')}`, { method: "DELETE", tenant: "tu1" })).status).toBeLessThan(300);
    expect((await post("/prometheus/tu1/api/v1/write", remoteWriteBody(s(3000, 13)), REMOTE_WRITE_HEADERS)).status).toBe(204);
    expect((await post("/prometheus/tu2/api/v1/write", remoteWriteBody(s(3000, 23)), REMOTE_WRITE_HEADERS)).status).toBe(204);
    expect(await raw("tu1", "a")).toEqual([13]);
    expect(await raw("tu1", "b")).toEqual([10.5, 11.5, 12.5, 13.5]);
    expect(await raw("tu2", "a")).toEqual([20, 21, 22, 23]);
    expect(await instant("tu1", "turns", T0 + 3000)).toEqual([
      { metric: { __name__: "turns", k: "a" }, value: [(T0 + 3000) / 1000, "13"] },
      { metric: { __name__: "turns", k: "b" }, value: [(T0 + 3000) / 1000, "13.5"] },
    ]);
  });

  test("bad bodies are 400 with a message and store nothing", async () => {
    const notSnappy = await post("/prometheus/rw/api/v1/write", new Uint8Array([1, 2, 3, 4]), REMOTE_WRITE_HEADERS);
    expect(notSnappy.status).toBe(400);
    expect((await body(notSnappy)).errorMsg).toMatch(/snappy/);
    const noName = await post("/prometheus/rw/api/v1/write", remoteWriteBody([{ labels: { job: "x" }, samples: [[T0, 1]] }]), REMOTE_WRITE_HEADERS);
    expect(noName.status).toBe(400);
    expect((await body(noName)).errorMsg).toMatch(/__name__/);
    const badTs = await post("/prometheus/rw/api/v1/write", remoteWriteBody([{ labels: { __name__: "ok_metric" }, samples: [[T0, 1]] }, { labels: { __name__: "bad" }, samples: [[2 ** 60, 1]] }]), REMOTE_WRITE_HEADERS);
    expect(badTs.status).toBe(400);
    expect(await instant("rw", "ok_metric", T0)).toHaveLength(0);
    const json = await post("/prometheus/rw/api/v1/write", "{}", { "Content-Type": "application/json" });
    expect(json.status).toBe(415);
  });
});

describe("Influx line protocol", () => {
  test("fields become <measurement>_<field> with the tags as labels, on /write and /api/v2/write", async () => {
    const lines = [`cpu,host=h1,region=eu usage_idle=90.5,usage_user=3i ${T0 * 1e6}`, `cpu,host=h2,region=eu usage_idle=80,up=true ${T0 * 1e6}`, `status,host=h1 msg="all \\"good\\"" ${T0 * 1e6}`].join("\n");
    expect((await post("/write?db=telegraf", lines, { "Svc-Tenant": "inf" })).status).toBe(204);
    expect((await post(`/influx/inf2/api/v2/write?org=o&bucket=b&precision=ms`, `mem,host=h1 used=5 ${T0}`)).status).toBe(204);
    expect(await instant("inf", "cpu_usage_idle", T0)).toEqual([
      { metric: { __name__: "cpu_usage_idle", host: "h1", region: "eu" }, value: [T0 / 1000, "90.5"] },
      { metric: { __name__: "cpu_usage_idle", host: "h2", region: "eu" }, value: [T0 / 1000, "80"] },
    ]);
    expect((await instant("inf", "cpu_up", T0))[0].value[1]).toBe("1");
    expect((await instant("inf", "cpu_usage_user", T0))[0].value[1]).toBe("3");
    expect(await instant("inf2", "mem_used", T0)).toEqual([{ metric: { __name__: "mem_used", host: "h1" }, value: [T0 / 1000, "5"] }]);
    const str = await body(await c.req(`/svc/metrics/strings/${encodeURIComponent('status_msg{host="h1"}')}/raw?start=${T0}&end=${T0 + 1}`, { tenant: "inf" }));
    expect(str[0].value).toBe('all "good"');
  });

  test("a bad line rejects the request (400, naming the line) and nothing of it is stored", async () => {
    const r = await post("/write", `good,host=a v=1 ${T0 * 1e6}\nbad,host=a v=abc ${T0 * 1e6}`, { "Svc-Tenant": "inf3" });
    expect(r.status).toBe(400);
    const b = await body(r);
    expect(b.error).toMatch(/line 2/);
    expect(b.errorMsg).toBe(b.error);
    expect(await instant("inf3", "good_v", T0)).toHaveLength(0);
    expect((await post("/write?precision=fortnights", `x v=1`, { "Svc-Tenant": "inf3" })).status).toBe(400);
    expect((await post("/write", "x v=1")).status).toBe(400);
  });
});
