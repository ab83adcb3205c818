/**
 * Real Prometheus-world clients against a real collector (Debian's `prometheus` package):
 * a Prometheus in agent mode scrapes an exporter this test serves and remote-writes into the
 * collector, every sample is then found by both APIs; promtool queries the collector.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { freePort, waitFor } from "../helpers/ports.ts";

const SAMPLES = 5;
let c: TestCollector;
let dir: string;
let exporter: ReturnType<typeof Bun.serve>;
let agent: ReturnType<typeof spawn>;
/** What the exporter served: the n-th distinct sample at its timestamp. */
const served: { ts: number; value: number }[] = [];

beforeAll(async () => {
  c = await startTestCollector();
  dir = mkdtempSync(join(tmpdir(), "outpost-prom-e2e-"));
  // A counter that grows by 10 per scrape up to SAMPLES, with explicit timestamps so that the
  // test knows every sample Prometheus took; then the last sample stays.
  exporter = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch() {
      if (served.length < SAMPLES) served.push({ ts: Date.now(), value: (served.length + 1) * 10 });
      const s = served[served.length - 1]!;
      return new Response(
        `# TYPE e2e_requests_total counter\ne2e_requests_total{path="/a"} ${s.value} ${s.ts}\n# TYPE e2e_temperature gauge\ne2e_temperature{room="lab"} ${20 + s.value / 20} ${s.ts}\n`,
        { headers: { "Content-Type": "text/plain; version=0.0.4" } },
      );
    },
  });
  const config = join(dir, "prometheus.yml");
  writeFileSync(
    config,
    `global:
  scrape_interval: 1s
scrape_configs:
  - job_name: exporter
    static_configs:
      - targets: ["127.0.0.1:${exporter.port}"]
remote_write:
  - url: ${c.url}/prometheus/e2e/api/v1/write
    queue_config:
      batch_send_deadline: 1s
      max_shards: 1
`,
  );
  const port = await freePort();
  agent = spawn(
    "prometheus",
    ["--enable-feature=agent", `--config.file=${config}`, `--storage.agent.path=${join(dir, "wal")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  agent.stderr?.on("data", () => {});
}, 60_000);

afterAll(async () => {
  if (agent && agent.exitCode === null) {
    const exited = new Promise((r) => agent.once("exit", r));
    agent.kill("SIGTERM");
    await exited;
  }
  exporter?.stop(true);
  await c?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const query = async (q: string, time: number) =>
  (await body(await c.req(`/prometheus/e2e/api/v1/query?${new URLSearchParams({ query: q, time: String(time / 1000) })}`, { tenant: null }))).data.result;

describe("Prometheus in agent mode remote-writing into the collector", () => {
  test("every scraped sample is found by the Prometheus API and the Hawkular API", async () => {
    // Remote write sends in order (one shard): once the last value is in, all earlier ones are.
    await waitFor(
      "the last sample",
      async () => {
        if (served.length < SAMPLES) return undefined;
        const r = await query('e2e_requests_total{path="/a"}', served[SAMPLES - 1]!.ts);
        return r[0]?.value[1] === String(SAMPLES * 10) ? true : undefined;
      },
      60_000,
      200,
    );
    for (const s of served) {
      const r = await query("e2e_requests_total", s.ts);
      expect(r).toEqual([{ metric: { __name__: "e2e_requests_total", instance: `127.0.0.1:${exporter.port}`, job: "exporter", path: "/a" }, value: [s.ts / 1000, String(s.value)] }]);
    }
    const id = `e2e_requests_total{instance="127.0.0.1:${exporter.port}",job="exporter",path="/a"}`;
    const raw = await body(await c.req(`/svc/metrics/gauges/${encodeURIComponent(id)}/raw?start=${served[0]!.ts}&end=${served[SAMPLES - 1]!.ts + 1}&order=ASC`, { tenant: "e2e" }));
    expect(raw.map((p: { timestamp: number; value: number }) => [p.timestamp, p.value])).toEqual(served.map((s) => [s.ts, s.value]));
    // Prometheus' own series about the scrape arrive too.
    expect((await query('up{job="exporter"}', served[SAMPLES - 1]!.ts + 2000))[0]?.value[1]).toBe("1");
    expect(await query("rate(e2e_requests_total[1m]) > 0", served[SAMPLES - 1]!.ts)).toHaveLength(1);
  }, 90_000);
});

describe("promtool against the collector", () => {
  // Asynchronous: the collector answers from this same process.
  const promtool = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const p = spawn("promtool", ["query", ...args], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      p.stdout.on("data", (d) => (stdout += d));
      p.stderr.on("data", (d) => (stderr += d));
      p.on("exit", (status) => resolve({ status, stdout, stderr }));
    });

  test("query instant and query range", async () => {
    const t0 = Math.floor(Date.now() / 1000) * 1000 - 60_000;
    const w = await c.req("/svc/metrics/gauges/raw", {
      method: "POST",
      tenant: "pt",
      json: [{ id: "room.temp", data: [0, 1, 2, 3].map((i) => ({ timestamp: t0 + i * 10_000, value: 20 + i })) }],
    });
    expect(w.status).toBe(200);
    const inst = await promtool("instant", "--time", String((t0 + 30_000) / 1000), `${c.url}/prometheus/pt`, '{"room.temp"} * 2');
    expect(inst.status, inst.stderr).toBe(0);
    expect(inst.stdout).toContain(`{} => 46 @[${(t0 + 30_000) / 1000}]`);
    const range = await promtool("range", "--start", String(t0 / 1000), "--end", String((t0 + 30_000) / 1000), "--step", "10s", "-o", "json", `${c.url}/prometheus/pt`, 'max_over_time({"room.temp"}[15s])');
    expect(range.status, range.stderr).toBe(0);
    const parsed = JSON.parse(range.stdout);
    expect(parsed[0].values.map((v: [number, string]) => v[1])).toEqual(["20", "21", "22", "23"]);
    const bad = await promtool("instant", `${c.url}/prometheus/pt`, "sum(");
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/bad_data|parse error/);
  }, 60_000);
});
