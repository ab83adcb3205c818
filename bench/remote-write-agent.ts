#!/usr/bin/env bun
/**
 * Remote-write ingest fed by a real Prometheus in agent mode (Debian's `prometheus`), side by
 * side with VictoriaMetrics (Debian's `victoria-metrics`) when installed: the same Prometheus
 * configuration for each system, its default queue settings (shards, batch size, capacity).
 * TARGETS exporters served here, SERIES series each, are scraped every SCRAPE_S seconds.
 *   live:    the system runs; LIVE_S seconds of scraping are sent as they come. Figures: the
 *            samples the system received per second, its CPU (user/system) and minor page
 *            faults per million samples, its peak RSS, and the mean time Prometheus waited for
 *            the answer to a request (its own sent_batch_duration_seconds) and the samples a
 *            request carried on average (how full its batches were).
 *   backlog: the system is stopped (cleanly) for BACKLOG_S seconds while Prometheus keeps
 *            scraping into its write-ahead log, then started again on the same port and data:
 *            the rate at which it takes the backlog (Prometheus adding shards as it falls
 *            behind, as it does by default), until Prometheus has sent every sample taken while
 *            it was down; the same figures, the peak RSS that of the restarted process.
 * Samples received are counted by each system itself (Outpost's
 * outpost_collector_points_ingested_total, VictoriaMetrics' vm_rows_inserted_total), and the
 * backlog's end by Prometheus (prometheus_remote_storage_queue_highest_sent_timestamp_seconds).
 * Outpost runs with its defaults (synchronous=FULL: a request is answered once on disk).
 * Env: TARGETS (10), SERIES (5000), SCRAPE_S (1), LIVE_S (30), BACKLOG_S (30), SYSTEMS,
 * BENCH_COLLECTOR_ARGS (more options for Outpost's collector, e.g. `--rollup-tiers none`),
 * TIMELINE=1 (a line a second during the backlog: Prometheus' shards, the samples taken, the
 * mean answer time, the server's CPU and Outpost's garbage collections),
 * COLLECTOR_PROFILE_RESTART=<dir> (a CPU profile of the restarted collector alone, the one that
 * takes the backlog; COLLECTOR_PROFILE profiles both).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countersSince, fmt, freePort, loadAverage, peakRssMB, type ProcCounters, procCounters } from "./_lib.ts";
import { type RestartableSystem, restartableOutpost, restartableVictoria, victoriaInstalled } from "./_remote-write-systems.ts";

const TARGETS = Number(process.env.TARGETS ?? 10);
const SERIES = Number(process.env.SERIES ?? 5000);
const SCRAPE_S = Number(process.env.SCRAPE_S ?? 1);
const LIVE_S = Number(process.env.LIVE_S ?? 30);
const BACKLOG_S = Number(process.env.BACKLOG_S ?? 30);
const TIMELINE = process.env.TIMELINE === "1";
const SYSTEMS = (process.env.SYSTEMS ?? "Outpost,VictoriaMetrics").split(",").map((s) => s.trim());

interface System extends RestartableSystem {
  /** Samples the system has counted as received, read from its metrics' text. */
  receivedIn(text: string): number;
  /** Counters of the system's own worth following in the timeline (TIMELINE=1), by name, from the same text. */
  countersIn?(text: string): Record<string, number>;
}

/** Samples the system has counted as received so far. */
async function received(sys: System): Promise<number> {
  return sys.receivedIn(await metricsText(sys.metricsUrl));
}

async function metricsText(url: string): Promise<string> {
  return (await fetch(url)).text();
}

/** The sum of a metric's samples in a Prometheus text exposition (all label sets, or those matching `labels`). */
function metricSum(text: string, name: string, labels = ""): number {
  let sum = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith(name) || (line[name.length] !== " " && line[name.length] !== "{")) continue;
    if (labels && !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return sum;
}

async function outpost(): Promise<System> {
  return {
    ...(await restartableOutpost("rw-agent-outpost-")),
    receivedIn: (text) => metricSum(text, "outpost_collector_points_ingested_total", 'path="remote-write"'),
    countersIn: (text) => ({ "full GCs": metricSum(text, "outpost_collector_memory_collections_total"), "young GCs": metricSum(text, "outpost_collector_memory_young_collections_total") }),
  };
}

async function victoria(): Promise<System> {
  return { ...(await restartableVictoria("rw-agent-vm-")), receivedIn: (text) => metricSum(text, "vm_rows_inserted_total", 'type="promremotewrite"') };
}

/** TARGETS exporters of SERIES gauges each, a new value per series at every scrape. */
function startExporters(): { ports: number[]; stop(): void } {
  const servers = Array.from({ length: TARGETS }, (_, t) => {
    let scrape = 0;
    const names = Array.from({ length: SERIES }, (_, s) => `bench_value{series="s${s}",group="g${s % 50}"} `);
    return Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch() {
        scrape++;
        const parts: string[] = ["# TYPE bench_value gauge\n"];
        for (let s = 0; s < SERIES; s++) parts.push(names[s]!, String((s * 7 + scrape * 13 + t) % 1000), "\n");
        return new Response(parts.join(""), { headers: { "Content-Type": "text/plain; version=0.0.4" } });
      },
    });
  });
  return {
    ports: servers.map((s) => s.port!),
    stop: () => {
      for (const s of servers) s.stop(true);
    },
  };
}

async function startAgent(writeUrl: string, ports: number[]): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "rw-agent-prom-"));
  const config = join(dir, "prometheus.yml");
  // Default queue settings: only the URL is given.
  writeFileSync(
    config,
    `global:\n  scrape_interval: ${SCRAPE_S}s\n  scrape_timeout: ${SCRAPE_S}s\nscrape_configs:\n  - job_name: bench\n    static_configs:\n      - targets: [${ports.map((p) => `"127.0.0.1:${p}"`).join(", ")}]\nremote_write:\n  - url: ${writeUrl}\n`,
  );
  const port = await freePort();
  const agent = spawn(
    "prometheus",
    ["--enable-feature=agent", `--config.file=${config}`, `--storage.agent.path=${join(dir, "wal")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=error"],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/-/ready`)).status === 200) break;
    } catch {}
    if (Date.now() > deadline) throw new Error("prometheus did not start");
    await Bun.sleep(100);
  }
  return {
    url,
    async stop() {
      const exited = new Promise((r) => agent.once("exit", r));
      agent.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Phase {
  samples: number;
  seconds: number;
  counters: ProcCounters;
  load: string;
  /** Mean time Prometheus waited for an answer to a request in this phase, ms. */
  requestMs: number;
  /** Requests Prometheus sent in this phase (samples ÷ requests: how full its batches were). */
  requests: number;
}

/** Prometheus' own count and total time of the requests it sent (its sent_batch_duration histogram). */
async function sentBatches(agentUrl: string): Promise<{ count: number; seconds: number }> {
  const text = await metricsText(`${agentUrl}/metrics`);
  return { count: metricSum(text, "prometheus_remote_storage_sent_batch_duration_seconds_count"), seconds: metricSum(text, "prometheus_remote_storage_sent_batch_duration_seconds_sum") };
}

function meanRequestMs(a: { count: number; seconds: number }, b: { count: number; seconds: number }): number {
  return b.count > a.count ? ((b.seconds - a.seconds) / (b.count - a.count)) * 1000 : Number.NaN;
}

/** What Prometheus' counts say of a phase: mean answer time and requests sent. */
async function requestsSince(a: { count: number; seconds: number }, agentUrl: string): Promise<Pick<Phase, "requestMs" | "requests">> {
  const b = await sentBatches(agentUrl);
  return { requestMs: meanRequestMs(a, b), requests: b.count - a.count };
}

interface Tick {
  at: number;
  batches: { count: number; seconds: number };
  samples: number;
  cpu: number;
  counters: Record<string, number>;
}

/** One line of the backlog's timeline (TIMELINE=1): what Prometheus and the server did in the last second. */
async function timelineLine(
  sys: System,
  text: string,
  pid: number,
  b0: ProcCounters,
  t1: number,
  last: Tick,
): Promise<Tick> {
  const at = performance.now();
  const batches = { count: metricSum(text, "prometheus_remote_storage_sent_batch_duration_seconds_count"), seconds: metricSum(text, "prometheus_remote_storage_sent_batch_duration_seconds_sum") };
  // One read of the server's metrics a tick: each read is work the server does during the run.
  const own = await metricsText(sys.metricsUrl);
  const samples = sys.receivedIn(own);
  const counters = sys.countersIn?.(own) ?? {};
  const c = countersSince(b0, procCounters(pid));
  const cpu = c.user + c.system;
  const s = (at - last.at) / 1000;
  const more = Object.entries(counters).map(([k, v]) => `, ${k} ${v - (last.counters[k] ?? 0)}`);
  console.log(
    `  ${sys.name} ${((at - t1) / 1000).toFixed(1)} s: shards ${metricSum(text, "prometheus_remote_storage_shards")} (desired ${metricSum(text, "prometheus_remote_storage_shards_desired").toFixed(1)}), ${fmt((samples - last.samples) / s)} samples/s, request ${meanRequestMs(last.batches, batches).toFixed(1)} ms, server CPU ${((cpu - last.cpu) / s).toFixed(2)} cores${more.join("")}`,
  );
  return { at, batches, samples, cpu, counters };
}

async function run(sys: System): Promise<{ live: Phase; backlog: Phase & { shards: number }; peakRss: number; backlogPeakRss: number }> {
  const exporters = startExporters();
  let pid = await sys.start();
  const agent = await startAgent(sys.writeUrl, exporters.ports);
  try {
    // Live: after a first scrape round has arrived (series created), LIVE_S seconds.
    const until = Date.now() + 60_000;
    while ((await received(sys)) < TARGETS * SERIES && Date.now() < until) await Bun.sleep(200);
    const r0 = await received(sys);
    const c0 = procCounters(pid);
    const q0 = await sentBatches(agent.url);
    const t0 = performance.now();
    await Bun.sleep(LIVE_S * 1000);
    const live: Phase = {
      samples: (await received(sys)) - r0,
      seconds: (performance.now() - t0) / 1000,
      counters: countersSince(c0, procCounters(pid)),
      load: loadAverage(),
      ...(await requestsSince(q0, agent.url)),
    };
    const peakRss = peakRssMB(pid);
    // Backlog: stopped while Prometheus keeps scraping, then started again.
    await sys.stop();
    await Bun.sleep(BACKLOG_S * 1000);
    const restartedAt = Date.now() / 1000;
    pid = await sys.start();
    const b0 = procCounters(pid);
    const s0 = await received(sys);
    const q1 = await sentBatches(agent.url);
    const t1 = performance.now();
    let shards = 0;
    let tick: Tick = { at: t1, batches: q1, samples: s0, cpu: 0, counters: sys.countersIn?.(await metricsText(sys.metricsUrl)) ?? {} };
    // Done once Prometheus has sent everything it scraped before the restart.
    for (;;) {
      const text = await metricsText(`${agent.url}/metrics`);
      shards = Math.max(shards, metricSum(text, "prometheus_remote_storage_shards"));
      if (TIMELINE && performance.now() - tick.at >= 1000) tick = await timelineLine(sys, text, pid, b0, t1, tick);
      if (metricSum(text, "prometheus_remote_storage_queue_highest_sent_timestamp_seconds") >= restartedAt) break;
      if (performance.now() - t1 > 600_000) throw new Error(`${sys.name}: backlog not taken in 10 minutes`);
      await Bun.sleep(100);
    }
    const backlog = {
      samples: (await received(sys)) - s0,
      seconds: (performance.now() - t1) / 1000,
      counters: countersSince(b0, procCounters(pid)),
      load: loadAverage(),
      shards,
      ...(await requestsSince(q1, agent.url)),
    };
    // The restarted process's own peak: where the backlog sets it, apart from the live phase's.
    return { live, backlog, peakRss, backlogPeakRss: peakRssMB(pid) };
  } finally {
    await agent.stop();
    await sys.stop();
    exporters.stop();
    sys.remove();
  }
}

const vmInstalled = victoriaInstalled();
if (!["/usr/bin", "/usr/local/bin"].some((d) => existsSync(`${d}/prometheus`))) {
  console.log("prometheus is not installed (apt-get install prometheus): nothing to measure");
  process.exit(0);
}
console.log(
  `Prometheus (agent mode, default queue settings) scraping ${TARGETS} targets × ${fmt(SERIES)} series every ${SCRAPE_S} s (${fmt((TARGETS * SERIES) / SCRAPE_S)} samples/s), remote-writing to each system: ${LIVE_S} s live, then a backlog of ${BACKLOG_S} s`,
);
if (!vmInstalled) console.log("(victoria-metrics is not installed: apt-get install victoria-metrics for the side-by-side figures)");
const makers = [...(SYSTEMS.includes("Outpost") ? [outpost] : []), ...(vmInstalled && SYSTEMS.includes("VictoriaMetrics") ? [victoria] : [])];
const rows: string[][] = [];
for (const make of makers) {
  const sys = await make();
  const r = await run(sys);
  const per = (p: Phase) => {
    const m = p.samples / 1e6;
    return [
      `${fmt(p.samples / p.seconds)}/s`,
      `${p.counters.user.toFixed(2)} + ${p.counters.system.toFixed(2)}`,
      ((p.counters.user + p.counters.system) / m).toFixed(2),
      fmt(p.counters.minflt / m),
      p.requestMs.toFixed(1),
      p.requests > 0 ? fmt(p.samples / p.requests) : "-",
    ];
  };
  rows.push([sys.name, "live", fmt(r.live.samples), ...per(r.live), `${fmt(r.peakRss)} MB`, r.live.load]);
  rows.push([sys.name, `backlog (≤ ${r.backlog.shards} shards)`, fmt(r.backlog.samples), ...per(r.backlog), `${fmt(r.backlogPeakRss)} MB`, r.backlog.load]);
}
const head = ["system", "phase", "samples", "received", "CPU user + sys s", "CPU-s / M", "faults / M", "request ms", "per request", "peak RSS", "load avg"];
const widths = [17, 24, 12, 14, 18, 11, 12, 12, 13, 10, 16];
console.log(`\n${head.map((h, i) => h.padEnd(widths[i]!)).join("")}`);
for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join(""));
