#!/usr/bin/env bun
/**
 * Scraping as a Prometheus agent does, side by side in one run (issue 27 item 7): the Outpost
 * agent and Prometheus in agent mode (Debian's `prometheus --enable-feature=agent`, remote-
 * writing to the collector) each scrape node_exporter (Debian's `prometheus-node-exporter`) and
 * a synthetic exporter of 10,000 series every 10 s into the same collector. Each program runs
 * twice at the same time, idle (no targets) and scraping, so the memory the inputs cost is the
 * difference between two processes measured under the same load: first the two Outpost agents,
 * then the two Prometheus agents. For each: RSS median and max over the window (anonymous +
 * file-backed: the file-backed part is the program's own code it touched), and for the scraping
 * one CPU-seconds (user + system) per million samples.
 *
 * The Outpost agent is the binary `npm run build:agent` builds (single file, JIT policy 1000),
 * as it ships; AGENT=source runs `bun agent/main.ts` instead.
 *
 * Usage: bun bench/inputs-scrape.ts   (env WARMUP_S=30, WINDOW_S=120, SERIES=10000, AGENT=binary,
 *        SKIP_PROMETHEUS=1 for the Outpost half alone, AGENT_BUILD_FLAGS: more flags for bun build)
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
}
function stat(pid: number): ProcStat {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { user: Number(f[11]) / 100, system: Number(f[12]) / 100 };
}
interface Memory {
  rss: number;
  anon: number;
  file: number;
}
function memory(pid: number): Memory {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? Number.NaN) / 1024;
  return { rss: mb("VmRSS"), anon: mb("RssAnon"), file: mb("RssFile") };
}
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
  user: number;
  system: number;
  mem: Memory[];
  samples: number;
}

interface Running {
  pid: number;
  /** The process's own count of samples taken (0 for an idle one). */
  samples(): Promise<number>;
  stop(): Promise<void>;
}

/** Measures the processes over the same window, after the warm-up; then stops them. */
async function measure(procs: Running[]): Promise<Window[]> {
  try {
    await Bun.sleep(WARMUP_S * 1000);
    const s0 = procs.map((p) => stat(p.pid));
    const n0 = await Promise.all(procs.map((p) => p.samples()));
    const mem: Memory[][] = procs.map(() => []);
    const end = Date.now() + WINDOW_S * 1000;
    while (Date.now() < end) {
      for (const [i, p] of procs.entries()) mem[i]!.push(memory(p.pid));
      await Bun.sleep(Math.min(2000, end - Date.now()));
    }
    const n1 = await Promise.all(procs.map((p) => p.samples()));
    return procs.map((p, i) => {
      const s1 = stat(p.pid);
      return { user: s1.user - s0[i]!.user, system: s1.system - s0[i]!.system, mem: mem[i]!, samples: n1[i]! - n0[i]! };
    });
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
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

/** The agent as it ships: the single-file binary of `npm run build:agent` (deploy/release/binaries.ts). */
async function agentCommand(): Promise<string[]> {
  // AGENT_PRELOAD: a module the source run preloads (a probe of its heap, say).
  if (process.env.AGENT === "source") return [BUN, ...(process.env.AGENT_PRELOAD ? ["--preload", process.env.AGENT_PRELOAD] : []), join(ROOT, "agent/main.ts")];
  const out = join(work.path, "outpost-agent");
  const { PROGRAMS } = await import("../deploy/release/binaries.ts");
  const build = Bun.spawn([BUN, "build", "--compile", "--minify", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", ...PROGRAMS.agent.extra, ...(process.env.AGENT_BUILD_FLAGS?.split(" ").filter(Boolean) ?? []), join(ROOT, "agent/main.ts"), "--outfile", out], { stdout: "ignore", stderr: "inherit" });
  if ((await build.exited) !== 0) throw new Error("building the agent failed");
  return [out];
}
const agentCmd = await agentCommand();

console.log(`targets: node_exporter (${nodeLines} samples a scrape) and a synthetic exporter of ${process.env.SERIES ?? 10_000} series, every ${INTERVAL}`);
console.log(`Outpost agent: ${process.env.AGENT === "source" ? "bun agent/main.ts" : "single-file binary as npm run build:agent builds it"}; warm-up ${WARMUP_S} s, window ${WINDOW_S} s; load average at start: ${loadavg()}`);

async function outpost(withInputs: boolean, name: string): Promise<Running> {
  const listen = await freePort();
  const config = join(work.path, `${name}.toml`);
  writeFileSync(
    config,
    withInputs
      ? `[agent]\n[[agent.inputs.prometheus]]\njob = "node"\ntargets = ["${targets[0]}"]\ninterval = "${INTERVAL}"\n[[agent.inputs.prometheus]]\njob = "synthetic"\ntargets = ["${targets[1]}"]\ninterval = "${INTERVAL}"\n`
      : "[agent]\n",
  );
  const args = ["--config", config, "--broker", `mqtt://127.0.0.1:${mqttPort}`, "--tenant", "bench", "--feed", name, "--data-dir", join(work.path, name), "--listen", `127.0.0.1:${listen}`, "--log-level", "warn"];
  const p = Bun.spawn([...agentCmd, ...args], { stdout: "ignore", stderr: "inherit", env: { ...process.env } });
  await waitUp(`http://127.0.0.1:${listen}/health`, "agent");
  return {
    pid: p.pid,
    samples: () => scrapeCounter(`http://127.0.0.1:${listen}/metrics`, "outpost_agent_input_samples_total", '{input="prometheus"}'),
    stop: async () => {
      p.kill("SIGTERM");
      await p.exited;
    },
  };
}

async function prometheusAgent(withTargets: boolean, name: string): Promise<Running> {
  const port = await freePort();
  const config = join(work.path, `${name}.yml`);
  const scrape = `scrape_configs:\n  - job_name: node\n    static_configs: [{ targets: ["${targets[0]}"] }]\n  - job_name: synthetic\n    static_configs: [{ targets: ["${targets[1]}"] }]\n`;
  writeFileSync(config, `global:\n  scrape_interval: ${INTERVAL}\n${withTargets ? scrape : ""}remote_write:\n  - url: ${collector.url}/prometheus/bench/api/v1/write\n`);
  const p = Bun.spawn(["prometheus", "--enable-feature=agent", `--config.file=${config}`, `--storage.agent.path=${join(work.path, `${name}-wal`)}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn"], { stdout: "ignore", stderr: "inherit" });
  await waitUp(`http://127.0.0.1:${port}/-/ready`, "prometheus");
  return {
    pid: p.pid,
    // Samples it appended from its scrapes (its own up/scrape_* series included, where Outpost's count leaves them out: a few per scrape).
    samples: () => scrapeCounter(`http://127.0.0.1:${port}/metrics`, "prometheus_agent_samples_appended_total"),
    stop: async () => {
      p.kill("SIGTERM");
      await p.exited;
    },
  };
}

try {
  const [ourIdle, ours] = await measure([await outpost(false, "outpost-idle"), await outpost(true, "outpost-scrape")]);
  const loadMid = loadavg();
  // SKIP_PROMETHEUS=1: the Outpost half alone (while iterating on the agent).
  const [theirIdle, theirs] = process.env.SKIP_PROMETHEUS ? [] : await measure([await prometheusAgent(false, "prometheus-idle"), await prometheusAgent(true, "prometheus-scrape")]);
  const stats = (await (await fetch(`http://${targets[1]}/stats`)).json()) as Record<string, number>;
  console.log(`load average after the Outpost window: ${loadMid}; at the end: ${loadavg()}; synthetic exporter scrapes by agent: ${JSON.stringify(stats)}`);
  const perM = (w: Window) => ((w.user + w.system) / w.samples) * 1e6;
  const med = (w: Window, k: keyof Memory) => median(w.mem.map((m) => m[k]));
  const mem = (w: Window) => `${med(w, "rss").toFixed(1)} MB (${med(w, "anon").toFixed(1)} anonymous + ${med(w, "file").toFixed(1)} file-backed), max ${Math.max(...w.mem.map((m) => m.rss)).toFixed(1)} MB`;
  const programs: [string, Window, Window][] = [["Outpost agent", ourIdle!, ours!]];
  if (theirIdle && theirs) programs.push(["Prometheus agent mode", theirIdle, theirs]);
  for (const [name, idle, busy] of programs) {
    row(`${name}: idle RSS median`, mem(idle));
    row(`${name}: scraping RSS median`, mem(busy));
    row(`${name}: RSS scraping − idle (medians)`, `${(med(busy, "rss") - med(idle, "rss")).toFixed(1)} MB (anonymous ${(med(busy, "anon") - med(idle, "anon")).toFixed(1)}, file-backed ${(med(busy, "file") - med(idle, "file")).toFixed(1)})`);
    row(`${name}: samples in window, CPU user + system`, `${fmt(busy.samples)}, ${busy.user.toFixed(2)} + ${busy.system.toFixed(2)} s: ${perM(busy).toFixed(2)} CPU-s per million samples`);
  }
  if (theirs) {
    row("CPU per sample, Outpost ÷ Prometheus agent", (perM(ours!) / perM(theirs)).toFixed(2));
    row("RSS scraping, Outpost ÷ Prometheus agent (medians)", (med(ours!, "rss") / med(theirs, "rss")).toFixed(2));
  }
} finally {
  synthetic.kill();
  nodeExporter.kill();
  collector.proc.kill("SIGTERM");
  await collector.proc.exited;
  work.remove();
}
