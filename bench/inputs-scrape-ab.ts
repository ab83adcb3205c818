#!/usr/bin/env bun
/**
 * The Outpost half of bench/inputs-scrape.ts for several source trees at once, side by side in
 * one window (issue 27 item 7, docs/inputs.md "Measured"): on a shared machine the load moves
 * from one run to the next, so a change is measured against the tree before it in the same
 * window. For each tree the agent is built as it ships, started idle and scraping (node_exporter
 * and a synthetic exporter of 10,000 series every 10 s) into the same collector; printed per
 * tree: CPU-seconds per million samples of the scraping one, RSS scraping − idle (medians; in
 * all, and its anonymous and file-backed parts), and the scraping one's minor page faults per 10 s.
 *
 * Usage: TREES=/path/to/before,/path/to/after bun bench/inputs-scrape-ab.ts
 *   (a tree is an exported checkout: `git archive <rev> | tar -x -C dir`, node_modules linked in)
 *   env WARMUP_S=30, WINDOW_S=90, AGENT=source (run `bun agent/main.ts`), and per tree i:
 *   AGENT_ENV_<i>="K=V ..." (environment), AGENT_ARGS_<i>="--flag value ..." (arguments),
 *   EXTRA_TOML_<i> (appended to its configuration).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, freePort, ROOT, startCollectorProcess, tempDir } from "./_lib.ts";

const trees = (process.env.TREES ?? ROOT).split(",").filter(Boolean);
const WARMUP_S = Number(process.env.WARMUP_S ?? 30);
const WINDOW_S = Number(process.env.WINDOW_S ?? 90);
const work = tempDir("outpost-bench-scrape-ab-");

function cpu(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}
/** Minor page faults of the process so far. */
function faults(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[7]);
}
/** Resident MB: all, anonymous, file-backed. */
function rssMB(pid: number): [number, number, number] {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kB = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN) / 1024;
  return [kB("VmRSS"), kB("RssAnon"), kB("RssFile")];
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const words = (s: string | undefined) => (s ?? "").split(" ").filter(Boolean);

async function waitUp(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if ((await fetch(url).catch(() => undefined))?.ok) return;
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not answer`);
}
async function samples(url: string): Promise<number> {
  let n = 0;
  for (const l of (await (await fetch(url)).text()).split("\n")) if (l.startsWith('outpost_agent_input_samples_total{input="prometheus"}')) n += Number(l.slice(l.lastIndexOf(" ") + 1));
  return n;
}

const mqttPort = await freePort();
const collector = await startCollectorProcess(["--mqtt-port", String(mqttPort), "--data-dir", join(work.path, "collector"), "--synchronous", "NORMAL"]);
const nodePort = await freePort();
const nodeExporter = Bun.spawn(["prometheus-node-exporter", `--web.listen-address=127.0.0.1:${nodePort}`], { stdout: "ignore", stderr: "ignore" });
const synthetic = Bun.spawn([BUN, join(ROOT, "bench/_synthetic-exporter.ts")], { stdout: "pipe", stderr: "inherit" });
const reader = synthetic.stdout.getReader();
const synthPort = Number(new TextDecoder().decode((await reader.read()).value).split("\n")[0]);
reader.releaseLock();
const targets = [`127.0.0.1:${nodePort}`, `127.0.0.1:${synthPort}`];
const procs: ReturnType<typeof Bun.spawn>[] = [];
try {
  await waitUp(`http://${targets[0]}/metrics`);
  const commands = await Promise.all(
    trees.map(async (tree, i) => {
      if (process.env.AGENT === "source") return [BUN, join(tree, "agent/main.ts")];
      const out = join(work.path, `agent-${i}`);
      const { PROGRAMS } = await import(join(tree, "deploy/release/binaries.ts"));
      const b = Bun.spawn([BUN, "build", "--compile", "--minify", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", ...PROGRAMS.agent.extra, join(tree, "agent/main.ts"), "--outfile", out], { cwd: tree, stdout: "ignore", stderr: "inherit" });
      if ((await b.exited) !== 0) throw new Error(`building ${tree} failed`);
      return [out];
    }),
  );
  const scrapeToml = `[[agent.inputs.prometheus]]\njob = "node"\ntargets = ["${targets[0]}"]\ninterval = "10s"\n[[agent.inputs.prometheus]]\njob = "synthetic"\ntargets = ["${targets[1]}"]\ninterval = "10s"\n`;
  const agents: { pid: number; url: string }[] = [];
  for (const [i, cmd] of commands.entries()) {
    for (const scraping of [false, true]) {
      const name = `${scraping ? "scrape" : "idle"}-${i}`;
      const listen = await freePort();
      const config = join(work.path, `${name}.toml`);
      writeFileSync(config, `[agent]\n${scraping ? scrapeToml : ""}${process.env[`EXTRA_TOML_${i}`] ?? ""}`);
      const env = Object.fromEntries(words(process.env[`AGENT_ENV_${i}`]).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
      const args = ["--config", config, "--broker", `mqtt://127.0.0.1:${mqttPort}`, "--tenant", "bench", "--feed", name, "--data-dir", join(work.path, name), "--listen", `127.0.0.1:${listen}`, "--log-level", "warn", ...words(process.env[`AGENT_ARGS_${i}`])];
      const p = Bun.spawn([...cmd, ...args], { stdout: "ignore", stderr: "inherit", env: { ...process.env, ...env } });
      procs.push(p);
      await waitUp(`http://127.0.0.1:${listen}/health`);
      agents.push({ pid: p.pid, url: `http://127.0.0.1:${listen}/metrics` });
    }
  }
  console.log(`trees: ${trees.join(" | ")}; warm-up ${WARMUP_S} s, window ${WINDOW_S} s; load average at start ${loadavg()}`);
  await Bun.sleep(WARMUP_S * 1000);
  const cpu0 = agents.map((a) => cpu(a.pid));
  const faults0 = agents.map((a) => faults(a.pid));
  const n0 = await Promise.all(agents.map((a) => samples(a.url)));
  const rss = agents.map(() => [[], [], []] as [number[], number[], number[]]);
  const end = Date.now() + WINDOW_S * 1000;
  while (Date.now() < end) {
    for (const [i, a] of agents.entries()) for (const [k, mb] of rssMB(a.pid).entries()) rss[i]![k]!.push(mb);
    await Bun.sleep(Math.min(2000, end - Date.now()));
  }
  const n1 = await Promise.all(agents.map((a) => samples(a.url)));
  const cpu1 = agents.map((a) => cpu(a.pid));
  const faults1 = agents.map((a) => faults(a.pid));
  console.log(`load average at the end ${loadavg()}`);
  trees.forEach((tree, i) => {
    const [idle, busy] = [2 * i, 2 * i + 1];
    const n = n1[busy]! - n0[busy]!;
    const perM = ((cpu1[busy]! - cpu0[busy]!) / n) * 1e6;
    const more = (k: number) => (median(rss[busy]![k]!) - median(rss[idle]![k]!)).toFixed(1);
    console.log(`${tree}: ${n} samples, ${perM.toFixed(2)} CPU-s per million samples; RSS idle ${median(rss[idle]![0]).toFixed(1)} MB, scraping ${median(rss[busy]![0]).toFixed(1)} MB: ${more(0)} MB more (anonymous ${more(1)}, file-backed ${more(2)}); ${(((faults1[busy]! - faults0[busy]!) / WINDOW_S) * 10).toFixed(0)} minor page faults per 10 s (a scrape of each target)`);
  });
} finally {
  for (const p of procs) p.kill("SIGTERM");
  await Promise.all(procs.map((p) => p.exited));
  synthetic.kill();
  nodeExporter.kill();
  collector.proc.kill("SIGTERM");
  await collector.proc.exited;
  work.remove();
}
