#!/usr/bin/env bun
/**
 * Small PromQL queries side by side with a real Prometheus (Debian's `prometheus`, as a server
 * with its remote-write receiver) on the same data, loaded into both by remote write: the fixed
 * cost of a query (parse, plan, series lookup, evaluation, JSON) where few series are touched.
 * Queries shaped like the PromQL compliance suite's (selectors, aggregations, rate,
 * histogram_quantile, binary operators, functions) over demo data like its own: per instance
 * (3) CPU counters by mode, memory gauges, a CPU count, and a request-duration histogram of 702
 * bucket series. Each query runs as query_range over RANGE_MIN minutes at a STEP_S step, RUNS
 * times after WARMUP runs (a long-running collector has its query code optimized by the JIT;
 * a handful of runs leave it in the lower tiers, 2–3 times slower), one at a time; p50/p99
 * include reading and parsing the JSON answer.
 * Prints each system's p50 and CPU per query (from /proc), and Outpost ÷ Prometheus.
 * Env: HOURS of data (6, at 15 s), RANGE_MIN (60), STEP_S (60), RUNS (200), WARMUP (200), ONLY
 * (substring of a query's name).
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compressSync } from "snappy";
import { encodeWriteRequest, type SeriesIn } from "../test/helpers/remote-write.ts";
import { countersSince, fmt, freePort, latency, loadAverage, procCounters, rssMB, tempDir, waitUp } from "./_lib.ts";
import { outpostSystem, type PromqlSystem } from "./_promql-systems.ts";

const HOURS = Number(process.env.HOURS ?? 6);
const RANGE_MIN = Number(process.env.RANGE_MIN ?? 60);
const STEP_S = Number(process.env.STEP_S ?? 60);
const RUNS = Number(process.env.RUNS ?? 200);
const WARMUP = Number(process.env.WARMUP ?? 200);
const SCRAPE_S = 15;
const END = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;
const START = END - HOURS * 3_600_000;
const INSTANCES = ["demo-1:10000", "demo-2:10001", "demo-3:10002"];
const MODES = ["user", "system", "idle"];
const LE = ["0.0002", "0.0004", "0.0008", "0.0016", "0.0032", "0.0064", "0.0128", "0.0256", "0.0512", "0.1024", "0.2048", "0.4096", "0.8192", "1.6384", "3.2768", "6.5536", "13.1072", "26.2144", "52.4288", "104.8576", "209.7152", "419.4304", "838.8608", "1677.7216", "3355.4432", "+Inf"];
const PATHS = ["/api/foo", "/api/bar", "/api/baz"];
const METHODS = ["GET", "POST", "PUT"];

const QUERIES: Record<string, string> = {
  selector: 'demo_cpu_usage_seconds_total{mode="user"}',
  rate: 'rate(demo_cpu_usage_seconds_total{mode="user"}[5m])',
  "sum by": "sum by (instance) (rate(demo_cpu_usage_seconds_total[5m]))",
  arithmetic: "demo_memory_usage_bytes / 1024 / 1024",
  comparison: "demo_memory_usage_bytes > 2e9",
  "binary on()": 'rate(demo_cpu_usage_seconds_total{mode="user"}[5m]) / on(instance) demo_num_cpus',
  "max_over_time": "max_over_time(demo_memory_usage_bytes[10m])",
  deriv: "abs(deriv(demo_memory_usage_bytes[5m]))",
  topk: "topk(2, demo_memory_usage_bytes)",
  "histogram_quantile (702 series)": "histogram_quantile(0.9, rate(demo_api_request_duration_seconds_bucket[5m]))",
  "histogram_quantile of sum by (le)": "histogram_quantile(0.9, sum by (le) (rate(demo_api_request_duration_seconds_bucket[5m])))",
};
const WANTED = Object.entries(QUERIES).filter(([name]) => name.includes(process.env.ONLY ?? ""));

/** The demo data, every SCRAPE_S seconds: counters grow unevenly, gauges wander, buckets are cumulative. */
function* bodies(): Generator<Uint8Array> {
  const points = Math.floor((END - START) / (SCRAPE_S * 1000)) + 1;
  const perRequest = 40; // scrapes per request
  const cpu = new Float64Array(INSTANCES.length * MODES.length);
  const buckets = new Float64Array(INSTANCES.length * PATHS.length * METHODS.length * LE.length);
  for (let j0 = 0; j0 < points; j0 += perRequest) {
    const series: SeriesIn[] = [];
    const add = (labels: Record<string, string>, f: (j: number) => number) => {
      const samples: [number, number][] = [];
      for (let j = j0; j < Math.min(points, j0 + perRequest); j++) samples.push([START + j * SCRAPE_S * 1000, f(j)]);
      series.push({ labels, samples });
    };
    INSTANCES.forEach((instance, i) => {
      MODES.forEach((mode, m) => {
        add({ __name__: "demo_cpu_usage_seconds_total", instance, job: "demo", mode }, (j) => (cpu[i * 3 + m]! += ((j * 7 + i * 3 + m) % 11) * 0.1 + 0.05));
      });
      add({ __name__: "demo_memory_usage_bytes", instance, job: "demo" }, (j) => 1.5e9 + 1e9 * Math.sin(j / 50 + i) + ((j * 13) % 7) * 1e6);
      add({ __name__: "demo_num_cpus", instance, job: "demo" }, () => 4 + i);
      let b = 0;
      for (const path of PATHS)
        for (const method of METHODS) {
          const base = b;
          LE.forEach((le, l) => {
            add({ __name__: "demo_api_request_duration_seconds_bucket", instance, job: "demo", le, method, path }, (j) => {
              // Cumulative: increments that grow with le keep every bucket at least the one below it.
              const k = (i * 9 + base) * LE.length + l;
              buckets[k] = buckets[k]! + ((j * 5 + base) % 4) + l;
              return buckets[k]!;
            });
          });
          b++;
        }
    });
    yield new Uint8Array(compressSync(Buffer.from(encodeWriteRequest(series))));
  }
}

const outpost = () => outpostSystem("promql-small-outpost-");

async function prometheus(): Promise<PromqlSystem> {
  const dir = tempDir("promql-small-prom-");
  const port = await freePort();
  const config = join(dir.path, "prometheus.yml");
  writeFileSync(config, "global:\n  scrape_interval: 1m\n");
  const proc = Bun.spawn(
    ["prometheus", `--config.file=${config}`, `--storage.tsdb.path=${join(dir.path, "data")}`, `--web.listen-address=127.0.0.1:${port}`, "--web.enable-remote-write-receiver", "--log.level=error"],
    { stdout: "ignore", stderr: "inherit" },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitUp(`${url}/-/ready`);
  return {
    name: "Prometheus",
    pid: proc.pid,
    writeUrl: `${url}/api/v1/write`,
    queryUrl: `${url}/api/v1/query_range`,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      dir.remove();
    },
  };
}

const RW_HEADERS = { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0" };

async function load(sys: PromqlSystem): Promise<void> {
  for (const body of bodies()) {
    const r = await fetch(sys.writeUrl, { method: "POST", headers: RW_HEADERS, body });
    if (r.status >= 300) throw new Error(`${sys.name} write: HTTP ${r.status} ${await r.text()}`);
  }
}

/** One query_range; returns the series in the answer, and its values for a check across systems. */
async function queryOnce(sys: PromqlSystem, q: string): Promise<{ series: number; points: number }> {
  const params = new URLSearchParams({ query: q, start: String((END - RANGE_MIN * 60_000) / 1000), end: String(END / 1000), step: String(STEP_S) });
  const r = await fetch(`${sys.queryUrl}?${params}`);
  const b = (await r.json()) as { status: string; data?: { result: { values: unknown[] }[] }; error?: string };
  if (b.status !== "success") throw new Error(`${sys.name}: ${q}: ${b.error}`);
  let points = 0;
  for (const s of b.data!.result) points += s.values.length;
  return { series: b.data!.result.length, points };
}

const promInstalled = ["/usr/bin", "/usr/local/bin"].some((d) => existsSync(`${d}/prometheus`));
console.log(
  `data: ${INSTANCES.length} instances (CPU by mode, memory, CPUs, ${INSTANCES.length * PATHS.length * METHODS.length * LE.length} histogram bucket series), ${HOURS} h at ${SCRAPE_S} s, loaded by remote write; queries: query_range over ${RANGE_MIN} min at ${STEP_S} s, ${RUNS} runs after ${WARMUP} warm-ups, one at a time`,
);
if (!promInstalled) console.log("(prometheus is not installed: apt-get install prometheus for the side-by-side figures)");
const results = new Map<string, Map<string, { p50: number; p99: number; cpuMs: number; series: number; points: number }>>();
const notes: string[] = [];
for (const start of [outpost, ...(promInstalled ? [prometheus] : [])]) {
  const sys = await start();
  try {
    await load(sys);
    const mine = new Map<string, { p50: number; p99: number; cpuMs: number; series: number; points: number }>();
    for (const [name, q] of WANTED) {
      const shape = await queryOnce(sys, q);
      const c0 = procCounters(sys.pid);
      const lat = await latency(() => queryOnce(sys, q), RUNS, WARMUP);
      const c = countersSince(c0, procCounters(sys.pid));
      mine.set(name, { p50: lat.p50, p99: lat.p99, cpuMs: ((c.user + c.system) * 1000) / (RUNS + WARMUP), ...shape });
    }
    results.set(sys.name, mine);
    notes.push(`${sys.name}: RSS ${fmt(rssMB(sys.pid))} MB after the queries, load ${loadAverage()}`);
  } finally {
    await sys.stop();
  }
}
const o = results.get("Outpost");
const p = results.get("Prometheus");
const w = [36, 14, 10, 10, 10, 14, 10, 10, 12];
console.log(`\n${["query", "series/points", "p50", "p99", "CPU/q", "Prometheus p50", "p99", "CPU/q", "Outpost ÷ P"].map((h, i) => h.padEnd(w[i]!)).join("")}`);
for (const [name] of WANTED) {
  const a = o?.get(name);
  const b = p?.get(name);
  const ms = (v: number | undefined) => (v === undefined ? "" : `${v.toFixed(2)} ms`);
  console.log(
    [
      name,
      a ? `${a.series}/${a.points}${b && (b.series !== a.series || b.points !== a.points) ? ` (P ${b.series}/${b.points})` : ""}` : "",
      ms(a?.p50),
      ms(a?.p99),
      ms(a?.cpuMs),
      ms(b?.p50),
      ms(b?.p99),
      ms(b?.cpuMs),
      a && b ? (a.p50 / b.p50).toFixed(2) : "",
    ]
      .map((c, i) => c.padEnd(w[i]!))
      .join(""),
  );
}
for (const n of notes) console.log(n);
