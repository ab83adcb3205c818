/**
 * The collector's and agent's own metrics: process, HTTP per interface, points per ingest
 * path, disk; valid Prometheus text (promtool check metrics) and stored as metrics.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, startAgent } from "../../agent/agent.ts";
import { interfaceOf } from "../../collector/self-monitoring.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { freePort, waitFor } from "../helpers/ports.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-selfmon-"));
let col: TestCollector;
let agent: Agent;

beforeAll(async () => {
  const mqtt = await freePort();
  col = await startTestCollector({ "mqtt-port": mqtt, "mqtt-host": "127.0.0.1", "self-metrics-interval": 200 });
  agent = await startAgent({ broker: `mqtt://127.0.0.1:${mqtt}`, tenant: "t1", feed: "edge-1", "data-dir": join(dir, "agent"), listen: "127.0.0.1:0", "log-level": "warn", interval: 200, "host-metrics": false });
});
afterAll(async () => {
  await agent.stop();
  await col.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `promtool check metrics` on the text: its exit code and what it complained about. */
async function promtool(text: string): Promise<{ code: number; out: string }> {
  const exe = Bun.which("promtool");
  if (!exe) throw new Error("promtool is not installed (Debian package prometheus; .ci/run installs it)");
  const p = Bun.spawn([exe, "check", "metrics"], { stdin: new TextEncoder().encode(text), stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code, out: out + err };
}

/** The value of one sample line of the exposition, e.g. `name{a="b"}`. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  if (!line) throw new Error(`no sample ${series}`);
  return Number(line.slice(series.length + 1));
}

const gaugeWrite = (id: string, n: number) => [{ id, dataPoints: Array.from({ length: n }, (_, i) => ({ timestamp: Date.now() - 10_000 + i, value: i })) }];

describe("collector self-monitoring", () => {
  beforeAll(async () => {
    expect((await col.req("/svc/metrics/gauges/raw", { method: "POST", json: gaugeWrite("h", 250) })).status).toBe(200);
    expect((await col.req("/svc/metrics/gauges/h/raw")).status).toBe(200);
    expect((await col.req("/svc/alerts/triggers")).status).toBeLessThan(300);
    expect((await col.req("/svc/inventory/entity/f;nowhere")).status).toBe(404);
    expect((await col.req("/svc/metrics/gauges/raw", { method: "POST", body: "not json", headers: { "Content-Type": "application/json" } })).status).toBe(400);
    const w = await fetch(`${agent.url}/svc/metrics/gauges/raw`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(gaugeWrite("m", 300)) });
    expect(w.status).toBe(200);
    await waitFor("the agent's points", async () => ((await col.req("/svc/metrics/gauges/m/raw")).status === 200 ? true : undefined));
  });

  it("serves valid Prometheus text at /metrics, with nothing for promtool to complain about", async () => {
    const r = await fetch(`${col.url}/metrics`);
    expect(r.headers.get("Content-Type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const check = await promtool(await r.text());
    expect(check).toEqual({ code: 0, out: "" });
  });

  it("counts requests and latencies per interface and status class, and points per ingest path", async () => {
    const text = await (await fetch(`${col.url}/metrics`)).text();
    expect(sample(text, 'outpost_http_requests_total{interface="metrics",code="2xx"}')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'outpost_http_requests_total{interface="metrics",code="4xx"}')).toBe(1);
    expect(sample(text, 'outpost_http_requests_total{interface="alerts",code="2xx"}')).toBe(1);
    expect(sample(text, 'outpost_http_requests_total{interface="inventory",code="4xx"}')).toBe(1);
    const count = sample(text, 'outpost_http_request_duration_seconds_count{interface="metrics"}');
    expect(sample(text, 'outpost_http_request_duration_seconds_bucket{interface="metrics",le="+Inf"}')).toBe(count);
    expect(sample(text, 'outpost_http_request_duration_seconds_bucket{interface="metrics",le="0.001"}')).toBeLessThanOrEqual(sample(text, 'outpost_http_request_duration_seconds_bucket{interface="metrics",le="10"}'));
    expect(sample(text, 'outpost_collector_points_ingested_total{path="http"}')).toBe(250);
    expect(sample(text, 'outpost_collector_points_ingested_total{path="mqtt"}')).toBeGreaterThanOrEqual(300);
  });

  it("measures the process and the data folder's disk", async () => {
    const text = await (await fetch(`${col.url}/metrics`)).text();
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(10e6);
    expect(sample(text, "process_open_fds")).toBeGreaterThan(3);
    expect(sample(text, "process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(sample(text, "outpost_event_loop_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "outpost_collector_disk_free_bytes")).toBeGreaterThan(0);
    expect(sample(text, "outpost_collector_disk_free_bytes")).toBeLessThanOrEqual(sample(text, "outpost_collector_disk_size_bytes"));
    expect(sample(text, 'outpost_collector_database_bytes{database="metrics"}')).toBeGreaterThan(0);
  });

  it("stores the same figures as metrics of the self-metrics tenant", async () => {
    const read = async (type: string, id: string) => {
      const r = await col.req(`/svc/metrics/${type}/${encodeURIComponent(id)}/raw?start=0&end=${Date.now() + 60_000}`, { tenant: "_outpost" });
      return r.status === 200 ? ((await r.json()) as { value: number }[]) : [];
    };
    const http = await waitFor("stored points per path", async () => {
      const p = await read("counters", "collector:outpost_collector_points_ingested_total:http");
      return p.some((x) => x.value === 250) ? p : undefined;
    });
    expect(http.length).toBeGreaterThan(0);
    expect((await read("counters", "collector:outpost_http_requests_total:metrics:2xx")).length).toBeGreaterThan(0);
    expect((await read("counters", "collector:outpost_http_request_duration_seconds_bucket:metrics:+Inf")).length).toBeGreaterThan(0);
    expect((await read("gauges", "collector:process_resident_memory_bytes")).length).toBeGreaterThan(0);
    expect((await read("gauges", "collector:process_cpu_seconds_total")).length).toBeGreaterThan(0);
  });

  it("files requests under the interface of their path", () => {
    expect(["/svc/metrics/gauges", "/hawkular/alerts/triggers", "/svc/inventory", "/svc/datamining/metrics", "/metrics", "/health", "/", "/prometheus/t/api/v1/query"].map(interfaceOf)).toEqual([
      "metrics", "alerts", "inventory", "datamining", "scrape", "health", "other", "prometheus",
    ]);
  });
});

describe("agent self-monitoring", () => {
  it("serves valid Prometheus text with its process metrics, and stores them as the feed's metrics", async () => {
    const text = await (await fetch(`${agent.url}/metrics`)).text();
    expect(await promtool(text)).toEqual({ code: 0, out: "" });
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(10e6);
    expect(sample(text, "outpost_agent_broker_connected")).toBe(1);
    await waitFor("stored process metrics of the feed", async () => {
      const r = await col.req(`/svc/metrics/gauges/${encodeURIComponent("edge-1:process_resident_memory_bytes")}/raw?start=0&end=${Date.now() + 60_000}`);
      return r.status === 200 ? true : undefined;
    });
  });
});
