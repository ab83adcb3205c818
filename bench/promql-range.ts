#!/usr/bin/env bun
/**
 * PromQL range queries side by side with VictoriaMetrics (Debian's victoria-metrics, when
 * installed), on the same data loaded into both through Prometheus remote write:
 *   rate(bench_requests_total[5m])                 over SERIES series
 *   sum by (host) (rate(bench_requests_total[5m])) the same, 50 hosts
 * each as query_range over HOURS hours at a 60 s step. Samples every SCRAPE_S seconds.
 * Defaults: 1,000 series × 24 h at 15 s (5.76 M samples). A quick check: SERIES=50 HOURS=2.
 * IDLE_S=<s>: also the resident size that long after the last query, and the first query after.
 * SYSTEMS=Outpost (or VictoriaMetrics) runs one system; ONLY=sum runs the queries whose name
 * contains "sum" (for a shorter look at one query, e.g. with COLLECTOR_PROFILE).
 * "CPU/query" is the system's CPU time per query (all threads; for Outpost also its main
 * thread's): on a shared machine it moves far less with the load than the latencies do.
 * Each system runs as its own process with its own data folder and port; p50/p99 of RUNS
 * queries after a warm-up, no result caches (VictoriaMetrics gets nocache=1). Each query's
 * time includes reading and parsing the whole JSON response, as a client does. RSS is taken
 * after loading, after each query's runs, and at the end. BENCH_COLLECTOR_ARGS passes options
 * to Outpost's collector (e.g. `--chunk-cache 16MiB`).
 */
import { existsSync } from "node:fs";
import { compressSync } from "snappy";
import { readFileSync } from "node:fs";
import { countersSince, cpuSeconds, fmt, freePort, latency, loadAverage, peakRssMB, procCounters, rssMB, tempDir, waitUp } from "./_lib.ts";
import { outpostSystem, type PromqlSystem } from "./_promql-systems.ts";
import { encodeWriteRequest } from "../test/helpers/remote-write.ts";

const SERIES = Number(process.env.SERIES ?? 1000);
const HOURS = Number(process.env.HOURS ?? 24);
const SCRAPE_S = Number(process.env.SCRAPE_S ?? 15);
const RUNS = Number(process.env.RUNS ?? 10);
const HOSTS = 50;
const END = Math.floor(Date.now() / 60_000) * 60_000 - 60_000;
const START = END - HOURS * 3_600_000;
const POINTS = Math.floor((END - START) / (SCRAPE_S * 1000)) + 1;
const ALL_QUERIES = {
  rate: "rate(bench_requests_total[5m])",
  "sum by (host)": "sum by (host) (rate(bench_requests_total[5m]))",
};
const QUERIES = Object.fromEntries(Object.entries(ALL_QUERIES).filter(([name]) => name.includes(process.env.ONLY ?? "")));
const SYSTEMS = (process.env.SYSTEMS ?? "Outpost,VictoriaMetrics").split(",");
/** Seconds to wait after the queries before reading the resident size once more (0: not read). */
const IDLE_S = Number(process.env.IDLE_S ?? 0);

/** CPU seconds of a process' main thread (its task with the process' id), from /proc. */
function mainThreadCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Remote-write bodies: every series' samples in chunks of time, ~50k samples per request. */
function* bodies(): Generator<Uint8Array> {
  const perReq = Math.max(1, Math.floor(50_000 / SERIES));
  const values = new Float64Array(SERIES);
  for (let j0 = 0; j0 < POINTS; j0 += perReq) {
    const series = [];
    for (let s = 0; s < SERIES; s++) {
      const samples: [number, number][] = [];
      for (let j = j0; j < Math.min(POINTS, j0 + perReq); j++) {
        // A counter with uneven growth and a restart every ~6 hours.
        values[s] = j % 1440 === 1439 ? 0 : values[s]! + ((s * 7 + j * 13) % 23);
        samples.push([START + j * SCRAPE_S * 1000, values[s]!]);
      }
      series.push({ labels: { __name__: "bench_requests_total", host: `h${s % HOSTS}`, series: `s${s}` }, samples });
    }
    yield new Uint8Array(compressSync(Buffer.from(encodeWriteRequest(series))));
  }
}

const RW_HEADERS = { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0" };

const outpost = () => outpostSystem("promql-outpost-");

async function victoria(): Promise<PromqlSystem> {
  const dir = tempDir("promql-vm-");
  const port = await freePort();
  const proc = Bun.spawn(["victoria-metrics", `-storageDataPath=${dir.path}`, `-httpListenAddr=127.0.0.1:${port}`, "-retentionPeriod=1y", "-search.latencyOffset=0s", "-loggerLevel=ERROR"], {
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUp(`${url}/health`);
  return {
    name: "VictoriaMetrics",
    pid: proc.pid,
    writeUrl: `${url}/api/v1/write`,
    queryUrl: `${url}/api/v1/query_range`,
    extra: "&nocache=1",
    async settle() {
      await fetch(`${url}/internal/force_flush`);
    },
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      dir.remove();
    },
  };
}

async function load(sys: PromqlSystem): Promise<{ rate: number; counters: string }> {
  const t = performance.now();
  const c0 = procCounters(sys.pid);
  let n = 0;
  for (const body of bodies()) {
    const r = await fetch(sys.writeUrl, { method: "POST", headers: RW_HEADERS, body });
    if (r.status >= 300) throw new Error(`${sys.name} write: HTTP ${r.status} ${await r.text()}`);
    if (++n % 20 === 0) process.stderr.write(`\r  ${sys.name}: ${n} requests sent`);
  }
  process.stderr.write("\n");
  await sys.settle?.();
  const c = countersSince(c0, procCounters(sys.pid));
  const m = (SERIES * POINTS) / 1e6;
  return {
    rate: (SERIES * POINTS) / ((performance.now() - t) / 1000),
    counters: `CPU ${c.user.toFixed(2)} + ${c.system.toFixed(2)} s (${((c.user + c.system) / m).toFixed(2)} CPU-s/M), ${fmt(c.minflt / m)} faults/M, load ${loadAverage()}`,
  };
}

async function queryOnce(sys: PromqlSystem, q: string): Promise<number> {
  const params = new URLSearchParams({ query: q, start: String(START / 1000), end: String(END / 1000), step: "60" });
  const r = await fetch(`${sys.queryUrl}?${params}${sys.extra ?? ""}`);
  const b = (await r.json()) as { status: string; data?: { result: unknown[] }; error?: string };
  if (b.status !== "success") throw new Error(`${sys.name}: ${b.error}`);
  return b.data!.result.length;
}

const installed = ["/usr/bin", "/usr/local/bin"].some((d) => existsSync(`${d}/victoria-metrics`));
console.log(`data: ${fmt(SERIES)} series × ${HOURS} h at ${SCRAPE_S} s = ${fmt(SERIES * POINTS)} samples, loaded by remote write; queries: query_range ${HOURS} h at 60 s step, ${RUNS} runs after 2 warm-ups`);
if (!installed) console.log("(victoria-metrics is not installed: apt-get install victoria-metrics for the side-by-side figures)");
const rows: string[][] = [];
const starts = [...(SYSTEMS.includes("Outpost") ? [outpost] : []), ...(installed && SYSTEMS.includes("VictoriaMetrics") ? [victoria] : [])];
for (const start of starts) {
  const sys = await start();
  try {
    const ingest = await load(sys);
    const rssLoaded = rssMB(sys.pid);
    for (const [name, q] of Object.entries(QUERIES)) {
      const series = await queryOnce(sys, q);
      const cpu0 = cpuSeconds(sys.pid);
      const main0 = mainThreadCpuSeconds(sys.pid);
      const lat = await latency(() => queryOnce(sys, q), RUNS, 2);
      const perQuery = (s: number) => `${((s * 1000) / (RUNS + 2)).toFixed(0)}`;
      const cpu = perQuery(cpuSeconds(sys.pid) - cpu0) + (sys.name === "Outpost" ? ` (main ${perQuery(mainThreadCpuSeconds(sys.pid) - main0)})` : "");
      rows.push([sys.name, name, fmt(series), `${lat.p50.toFixed(1)} ms`, `${lat.p99.toFixed(1)} ms`, `${cpu} ms`, `RSS ${fmt(rssMB(sys.pid))} MB`]);
    }
    rows.push([sys.name, "(ingest by remote write)", `${fmt(ingest.rate)} samples/s`, "", "", ingest.counters]);
    // Before and after the queries: what the query path itself keeps (or leaves behind).
    rows.push([sys.name, "(RSS loaded → queried)", `${fmt(rssLoaded)} → ${fmt(rssMB(sys.pid))} MB`, `peak ${fmt(peakRssMB(sys.pid))} MB`, "", `load ${loadAverage()}`]);
    if (IDLE_S > 0) {
      await Bun.sleep(IDLE_S * 1000);
      rows.push([sys.name, `(RSS ${IDLE_S} s idle after)`, `${fmt(rssMB(sys.pid))} MB`, "", "", `load ${loadAverage()}`]);
      // What the first query after the pause pays (a runtime that let caches or threads go meanwhile).
      const [name, q] = Object.entries(QUERIES)[0]!;
      const t0 = performance.now();
      await queryOnce(sys, q);
      rows.push([sys.name, `(${name}, first after idle)`, "", `${(performance.now() - t0).toFixed(1)} ms`, "", "", `RSS ${fmt(rssMB(sys.pid))} MB`]);
    }
  } finally {
    await sys.stop();
  }
}
const widths = [18, 26, 22, 12, 12, 18];
console.log(`\n${["system", "query", "series returned", "p50", "p99", "CPU/query", "RSS after"].map((h, i) => h.padEnd(widths[i]!)).join("")}`);
for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join(""));
