#!/usr/bin/env bun
/**
 * Scraping as a Prometheus agent does, side by side in one run (issue 27 item 7): the Outpost
 * agent and Prometheus in agent mode (Debian's `prometheus --enable-feature=agent`, remote-
 * writing to the collector) each scrape node_exporter (Debian's `prometheus-node-exporter`) and
 * a synthetic exporter of 10,000 series every 10 s, one after the other, into the same collector.
 * For each: CPU-seconds (user + system) per million samples and RSS over the window; for
 * Outpost also its idle RSS (the same agent without inputs) in the same run.
 *
 * Usage: bun bench/inputs-scrape.ts   (env WARMUP_S=30, WINDOW_S=120, SERIES=10000)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, fmt, freePort, ROOT, row, startCollectorProcess, tempDir } from "./_lib.ts";

const WARMUP_S = Number(process.env.WARMUP_S ?? 30);
const WINDOW_S = Number(process.env.WINDOW_S ?? 120);
const INTERVAL = "10s";
const work = tempDir("outpost-bench-scrape-");

interface ProcStat {
  user: number;
  system: number;
  minflt: number;
}
function stat(pid: number): ProcStat {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { minflt: Number(f[7]), user: Number(f[11]) / 100, system: Number(f[12]) / 100 };
}
const rssMB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

async function waitUp(url: string, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if ((await fetch(url).catch(() => undefined))?.ok) return;
    await Bun.sleep(100);
  }
  throw new Error(`${what} did not start`);
}

/** The number a child prints on its first line (its port). */
async function firstLineNumber(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return Number(text.split("\n")[0]);
}

/** A counter from a /metrics page (summed over its label sets when `labels` is not given). */
async function scrapeCounter(url: string, name: string, labels = ""): Promise<number> {
  const text = await (await fetch(url)).text();
  let total = 0;
  for (const line of text.split("\n")) if (line.startsWith(`${name}${labels}`) && /[ {]/.test(line[name.length] ?? "")) total += Number(line.slice(line.lastIndexOf(" ") + 1));
  return total;
}

interface Window {
  cpu: number;
  user: number;
  system: number;
  minflt: number;
  rss: number[];
  samples: number;
}

/** Measures `pid` over the window; `samples()` reads the process's own count of samples taken. */
async function measure(pid: number, samples: () => Promise<number>): Promise<Window> {
  await Bun.sleep(WARMUP_S * 1000);
  const s0 = stat(pid);
  const n0 = await samples();
  const rss: number[] = [];
  const end = Date.now() + WINDOW_S * 1000;
  while (Date.now() < end) {
    rss.push(rssMB(pid));
    await Bun.sleep(Math.min(5000, end - Date.now()));
  }
  const s1 = stat(pid);
  const n1 = await samples();
  return { cpu: s1.user - s0.user + s1.system - s0.system, user: s1.user - s0.user, system: s1.system - s0.system, minflt: s1.minflt - s0.minflt, rss, samples: n1 - n0 };
}

const mqttPort = await freePort();
const collector = await startCollectorProcess(["--mqtt-port", String(mqttPort), "--data-dir", join(work.path, "collector"), "--synchronous", "NORMAL"]);
const nodePort = await freePort();
const nodeExporter = Bun.spawn(["prometheus-node-exporter", `--web.listen-address=127.0.0.1:${nodePort}`], { stdout: "ignore", stderr: "ignore" });
await waitUp(`http://127.0.0.1:${nodePort}/metrics`, "node_exporter");
const synthetic = Bun.spawn([BUN, join(ROOT, "bench/_synthetic-exporter.ts")], { stdout: "pipe", stderr: "inherit", env: { ...process.env } });
const synthPort = await firstLineNumber(synthetic.stdout);
const targets = [`127.0.0.1:${nodePort}`, `127.0.0.1:${synthPort}`];
await waitUp(`http://${targets[1]}/stats`, "synthetic exporter");
const nodeLines = (await (await fetch(`http://${targets[0]}/metrics`)).text()).split("\n").filter((l) => l && !l.startsWith("#")).length;

console.log(`targets: node_exporter (${nodeLines} samples a scrape) and a synthetic exporter of ${process.env.SERIES ?? 10_000} series, every ${INTERVAL}`);
console.log(`warm-up ${WARMUP_S} s, window ${WINDOW_S} s; load average at start: ${loadavg()}`);

async function outpost(withInputs: boolean, name: string): Promise<Window & { pid: number }> {
  const dir = join(work.path, name);
  const listen = await freePort();
  const config = join(work.path, `${name}.toml`);
  writeFileSync(
    config,
    withInputs
      ? `[agent]\n[[agent.inputs.prometheus]]\njob = "node"\ntargets = ["${targets[0]}"]\ninterval = "${INTERVAL}"\n[[agent.inputs.prometheus]]\njob = "synthetic"\ntargets = ["${targets[1]}"]\ninterval = "${INTERVAL}"\n`
      : "[agent]\n",
  );
  const p = Bun.spawn([BUN, join(ROOT, "agent/main.ts"), "--config", config, "--broker", `mqtt://127.0.0.1:${mqttPort}`, "--tenant", "bench", "--feed", name, "--data-dir", dir, "--listen", `127.0.0.1:${listen}`, "--log-level", "warn"], { stdout: "ignore", stderr: "inherit", env: { ...process.env } });
  await waitUp(`http://127.0.0.1:${listen}/health`, "agent");
  const w = await measure(p.pid, () => scrapeCounter(`http://127.0.0.1:${listen}/metrics`, "outpost_agent_input_samples_total", '{input="prometheus"}'));
  p.kill("SIGTERM");
  await p.exited;
  return { ...w, pid: p.pid };
}

async function prometheusAgent(): Promise<Window> {
  const port = await freePort();
  const config = join(work.path, "prometheus.yml");
  writeFileSync(
    config,
    `global:\n  scrape_interval: ${INTERVAL}\nscrape_configs:\n  - job_name: node\n    static_configs: [{ targets: ["${targets[0]}"] }]\n  - job_name: synthetic\n    static_configs: [{ targets: ["${targets[1]}"] }]\nremote_write:\n  - url: ${collector.url}/prometheus/bench/api/v1/write\n`,
  );
  const p = Bun.spawn(["prometheus", "--enable-feature=agent", `--config.file=${config}`, `--storage.agent.path=${join(work.path, "prom-wal")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn"], { stdout: "ignore", stderr: "inherit" });
  await waitUp(`http://127.0.0.1:${port}/-/ready`, "prometheus");
  // Samples it appended from its scrapes (its own up/scrape_* series included, as in Outpost's count above they are not: a few per scrape).
  const w = await measure(p.pid, () => scrapeCounter(`http://127.0.0.1:${port}/metrics`, "prometheus_agent_samples_appended_total"));
  p.kill("SIGTERM");
  await p.exited;
  return w;
}

try {
  const idle = await outpost(false, "outpost-idle");
  const ours = await outpost(true, "outpost-scrape");
  const theirs = await prometheusAgent();
  const stats = (await (await fetch(`http://${targets[1]}/stats`)).json()) as Record<string, number>;
  const perM = (w: Window) => (w.cpu / w.samples) * 1e6;
  console.log(`load average at end: ${loadavg()}; synthetic exporter scrapes by agent: ${JSON.stringify(stats)}`);
  for (const [name, w] of [
    ["Outpost agent, idle (no inputs)", idle],
    ["Outpost agent scraping", ours],
    ["Prometheus agent mode scraping", theirs],
  ] as const) {
    row(`${name}: samples in window`, fmt(w.samples));
    row(`${name}: CPU user + system`, `${w.user.toFixed(2)} + ${w.system.toFixed(2)} s${w.samples > 0 ? `, ${perM(w).toFixed(2)} CPU-s per million samples` : ""}`);
    row(`${name}: RSS median / max`, `${median(w.rss).toFixed(1)} / ${Math.max(...w.rss).toFixed(1)} MB; minor faults ${fmt(w.minflt)}`);
  }
  row("CPU per sample, Outpost ÷ Prometheus agent", (perM(ours) / perM(theirs)).toFixed(2));
  row("Outpost RSS scraping − idle (median)", `${(median(ours.rss) - median(idle.rss)).toFixed(1)} MB`);
  row("RSS, Outpost ÷ Prometheus agent (median)", (median(ours.rss) / median(theirs.rss)).toFixed(2));
} finally {
  synthetic.kill();
  nodeExporter.kill();
  collector.proc.kill("SIGTERM");
  await collector.proc.exited;
  work.remove();
}
