/**
 * The agent scraping exporters this test serves (real HTTP), its points forwarded to a real
 * collector, read back through the Prometheus API and the Hawkular API under the names and
 * labels a remote-writing Prometheus would give them, plus the agent's feed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { body } from "../../helpers/collector.ts";
import { freePort, waitFor } from "../../helpers/ports.ts";
import { type InputsSystem, startInputsSystem } from "./system.ts";

const TEXT = `# HELP app_requests_total Requests.
# TYPE app_requests_total counter
app_requests_total{path="/a",code="200"} 10
app_requests_total{path="/b \\"q\\"\\\\x",code="500"} 2
# TYPE app_temperature gauge
app_temperature 21.5
# TYPE app_latency_seconds histogram
app_latency_seconds_bucket{le="0.1"} 3
app_latency_seconds_bucket{le="1"} 5
app_latency_seconds_bucket{le="+Inf"} 6
app_latency_seconds_sum 4.2
app_latency_seconds_count 6
# TYPE app_rpc_seconds summary
app_rpc_seconds{quantile="0.5"} 0.2
app_rpc_seconds{quantile="0.99"} NaN
app_rpc_seconds_sum 12
app_rpc_seconds_count 40
app_untyped{job="exporter-job",instance="inside"} 7
go_goroutines 12
this line is broken
app_with_time 3 1700000000000
`;

const OPENMETRICS = `# TYPE om_events counter
om_events_total{kind="x"} 5.0 # {trace_id="abc"} 1.0
om_events_created{kind="x"} 1700000000.5
# EOF
`;

let sys: InputsSystem;
let text: ReturnType<typeof Bun.serve>;
let om: ReturnType<typeof Bun.serve>;
let flaky: ReturnType<typeof Bun.serve> | undefined;
let flakyPort: number;
let dir: string;
let scrapes = 0;
let served = TEXT;

const startFlaky = () => {
  flaky = Bun.serve({ port: flakyPort, hostname: "127.0.0.1", fetch: () => new Response("flaky_value 1\n") });
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "outpost-scrape-"));
  text = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      scrapes++;
      expect(req.headers.get("Accept")).toContain("application/openmetrics-text");
      return new Response(served, { headers: { "Content-Type": "text/plain; version=0.0.4" } });
    },
  });
  om = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(OPENMETRICS, { headers: { "Content-Type": "application/openmetrics-text; version=1.0.0; charset=utf-8" } }) });
  flakyPort = await freePort();
  startFlaky();
  const targetFile = join(dir, "targets.json");
  writeFileSync(targetFile, JSON.stringify([{ targets: [`127.0.0.1:${om.port}`], labels: { team: "blue" } }]));
  sys = await startInputsSystem({
    inputs: {
      prometheus: [
        {
          job: "app",
          targets: [`127.0.0.1:${text.port}`],
          labels: { env: "test" },
          interval: "1s",
          timeout: "900ms",
          metric_relabel_configs: [{ source_labels: ["__name__"], regex: "go_.*", action: "drop" }],
        },
        { job: "om", files: [join(dir, "*.json")], interval: "1s", timeout: "900ms", refresh_interval: "1s" },
        { job: "flaky", targets: [`127.0.0.1:${flakyPort}`], interval: "1s", timeout: "500ms" },
      ],
    },
  });
}, 60_000);

afterAll(async () => {
  await sys?.close();
  text?.stop(true);
  om?.stop(true);
  flaky?.stop(true);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("scraping Prometheus exporters", () => {
  test("series arrive under Prometheus names with job, instance, target labels and feed; bad lines and NaN skipped, relabelling applied", async () => {
    const instance = `127.0.0.1:${text.port}`;
    const r = await sys.until('app_requests_total{job="app"}', 2);
    const byPath = Object.fromEntries(r.map((s) => [s.metric.path, s]));
    expect(byPath["/a"]!.metric).toEqual({ __name__: "app_requests_total", code: "200", env: "test", feed: "edge-1", instance, job: "app", path: "/a" });
    expect(byPath["/a"]!.value[1]).toBe("10");
    expect(byPath['/b "q"\\x']!.value[1]).toBe("2");
    expect((await sys.query("app_temperature"))[0]!.value[1]).toBe("21.5");
    // Histogram and summary series, le and quantile as Prometheus 3 stores them.
    const buckets = await sys.query("app_latency_seconds_bucket");
    expect(buckets.map((b) => b.metric.le).sort()).toEqual(["+Inf", "0.1", "1.0"]);
    expect((await sys.query('histogram_quantile(0.5, app_latency_seconds_bucket{job="app"})'))[0]!.value[1]).toBeDefined();
    expect((await sys.query("app_rpc_seconds")).map((s) => s.metric.quantile)).toEqual(["0.5"]);
    expect((await sys.query("app_rpc_seconds_count"))[0]!.value[1]).toBe("40");
    // honor_labels off: the exporter's own job and instance are kept as exported_*.
    expect((await sys.query("app_untyped"))[0]!.metric).toMatchObject({ job: "app", instance, exported_job: "exporter-job", exported_instance: "inside" });
    expect(await sys.query("go_goroutines")).toEqual([]);
    // A sample with its own timestamp keeps it.
    expect((await sys.query("app_with_time", 1_700_000_000_000))[0]!.value).toEqual([1_700_000_000, "3"]);
    // Per-target series as Prometheus names them.
    const up = await sys.until(`up{job="app",instance="${instance}"}`);
    expect(up[0]!.metric).toEqual({ __name__: "up", env: "test", feed: "edge-1", instance, job: "app" });
    expect(up[0]!.value[1]).toBe("1");
    const scraped = await sys.query(`scrape_samples_scraped{job="app"}`);
    expect(scraped[0]!.value[1]).toBe("15");
    expect((await sys.query(`scrape_samples_post_metric_relabeling{job="app"}`))[0]!.value[1]).toBe("14");
    expect(await sys.query(`scrape_duration_seconds{job="app"}`)).toHaveLength(1);
    expect(await sys.query(`scrape_series_added{job="app"}`)).toHaveLength(1);
    // The same series through the Hawkular API: a gauge with the remote-write id and tags.
    const id = `app_requests_total{code="200",env="test",feed="edge-1",instance="${instance}",job="app",path="/a"}`;
    const def = await body(await sys.col.req(`/svc/metrics/gauges/${encodeURIComponent(id)}`, { tenant: "acme" }));
    expect(def.tags).toEqual({ code: "200", env: "test", feed: "edge-1", instance, job: "app", metric: "app_requests_total", path: "/a" });
    const raw = await body(await sys.col.req(`/svc/metrics/gauges/${encodeURIComponent(id)}/raw?start=0`, { tenant: "acme" }));
    expect(raw.length).toBeGreaterThan(0);
    expect(raw[0].value).toBe(10);
  }, 60_000);

  test("OpenMetrics from a target file: exemplars ignored, _created kept, file labels applied", async () => {
    const r = await sys.until("om_events_total");
    expect(r[0]!.metric).toEqual({ __name__: "om_events_total", feed: "edge-1", instance: `127.0.0.1:${om.port}`, job: "om", kind: "x", team: "blue" });
    expect(r[0]!.value[1]).toBe("5");
    expect((await sys.until("om_events_created"))[0]!.value[1]).toBe("1700000000.5");
  }, 30_000);

  test("a target file that changes is re-read: its new target is scraped, the old one stops", async () => {
    const second = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("second_target_value 42\n") });
    try {
      writeFileSync(join(dir, "targets.json"), JSON.stringify([{ targets: [`127.0.0.1:${second.port}`], labels: { team: "green" } }]));
      const r = await sys.until('second_target_value{team="green"}');
      expect(r[0]!.metric.job).toBe("om");
      // The target no longer in the file was removed: its series and its up end with markers.
      await waitFor("the removed target's series to end", async () => ((await sys.query("om_events_total")).length === 0 ? true : undefined), 10_000, 100);
      expect(await sys.query(`up{job="om",instance="127.0.0.1:${om.port}"}`)).toEqual([]);
    } finally {
      second.stop(true);
    }
  }, 30_000);

  test("a target that dies is down (up 0), its series stale at once; scraped again when it comes back", async () => {
    const q = `up{job="flaky"}`;
    await waitFor("flaky up", async () => ((await sys.query(q))[0]?.value[1] === "1" ? true : undefined), 20_000, 100);
    expect(await sys.query("flaky_value")).toHaveLength(1);
    flaky!.stop(true);
    await waitFor("flaky down", async () => ((await sys.query(q))[0]?.value[1] === "0" ? true : undefined), 20_000, 100);
    // The failed scrape wrote staleness markers: PromQL no longer returns the series (without
    // them it would for the 5-minute lookback).
    expect(await sys.query("flaky_value")).toEqual([]);
    startFlaky();
    await waitFor("flaky up again", async () => ((await sys.query(q))[0]?.value[1] === "1" ? true : undefined), 20_000, 100);
    expect((await sys.query("flaky_value"))[0]!.value[1]).toBe("1");
  }, 60_000);

  test("a series that vanishes from a target is stale after the scrape that missed it; others go on", async () => {
    const gone = 'app_requests_total{job="app",code="500"}';
    await sys.until(gone);
    const before = scrapes;
    served = TEXT.replace(/^app_requests_total\{path="\/b.*\n/m, "");
    await waitFor("the series to be stale", async () => ((await sys.query(gone)).length === 0 ? true : undefined), 20_000, 100);
    expect(scrapes).toBeGreaterThan(before);
    expect(await sys.query('app_requests_total{job="app",code="200"}')).toHaveLength(1);
    // Its points before the marker are still there for range queries.
    expect((await sys.query(`count_over_time(${gone}[1m])`))[0]!.value[1]).not.toBe("0");
    served = TEXT;
    await sys.until(gone);
  }, 30_000);

  test("self-metrics per input count samples, errors and bytes", async () => {
    const res = await fetch(`${sys.agent.url}/metrics`);
    const text = await res.text();
    const value = (name: string) => Number(new RegExp(`^${name}\\{input="prometheus"\\} (\\S+)$`, "m").exec(text)?.[1]);
    expect(value("outpost_agent_input_samples_total")).toBeGreaterThan(0);
    expect(value("outpost_agent_input_errors_total")).toBeGreaterThan(0);
    expect(value("outpost_agent_input_bytes_total")).toBeGreaterThan(0);
    expect(value("outpost_agent_input_dropped_total")).toBeGreaterThan(0);
    expect(scrapes).toBeGreaterThan(1);
  });
});
