#!/usr/bin/env bun
/**
 * Idle footprint of the agent with the default host metrics (every 10 s), connected to a
 * collector (embedded broker) that acknowledges everything, so the buffer stays empty.
 * For each way of running the agent, each run a fresh process: VmRSS split into anonymous
 * memory (heap, stacks) and file-backed pages (the Bun runtime's code it touched, shared and
 * reclaimable), median over the window; and CPU time as a share of one core over the window.
 *
 * Usage: bun bench/agent-footprint.ts [warmupSeconds=20] [windowSeconds=60] [runs=1] [variant ...]
 * Variants (binaries are built into a temp folder):
 *   bun          bun agent/main.ts
 *   bun-smol     bun --smol agent/main.ts
 *   binary-jit1  bun build --compile with the default JIT policy
 *   binary       as `npm run build:agent` builds it (--compile-jit-policy=1000)
 *   binary-nojit the same binary with BUN_JSC_useJIT=0 (interpreter only)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, cpuSeconds, fmt, freePort, percentile, ROOT, row, startCollectorProcess, tempDir } from "./_lib.ts";

const [warmupArg, windowArg, runsArg, ...only] = process.argv.slice(2);
const warmupS = Number(warmupArg ?? 20);
const windowS = Number(windowArg ?? 60);
const runs = Number(runsArg ?? 1);

const work = tempDir("outpost-footprint-");
const BUILD = ["build", "--compile", "--minify", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"];

async function build(out: string, extra: string[]): Promise<string> {
  const path = join(work.path, out);
  const p = Bun.spawn([BUN, ...BUILD, ...extra, join(ROOT, "agent/main.ts"), "--outfile", path], { stdout: "ignore", stderr: "inherit" });
  if ((await p.exited) !== 0) throw new Error(`building ${out} failed`);
  return path;
}

interface Variant {
  cmd: () => Promise<string[]>;
  env?: Record<string, string>;
}
const variants: Record<string, Variant> = {
  bun: { cmd: async () => [BUN, join(ROOT, "agent/main.ts")] },
  "bun-smol": { cmd: async () => [BUN, "--smol", join(ROOT, "agent/main.ts")] },
  "binary-jit1": { cmd: async () => [await build("agent-jit1", [])] },
  binary: { cmd: async () => [await build("agent", ["--compile-jit-policy=1000"])] },
  "binary-nojit": { cmd: async () => [await build("agent-nojit", ["--compile-jit-policy=1000"])], env: { BUN_JSC_useJIT: "0" } },
};

function memory(pid: number): { rss: number; anon: number; file: number } {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? Number.NaN) / 1024;
  return { rss: mb("VmRSS"), anon: mb("RssAnon"), file: mb("RssFile") };
}

async function measure(name: string, v: Variant, cmd: string[], mqttPort: number, run: number): Promise<void> {
  const data = tempDir("outpost-footprint-agent-");
  const args = ["--broker", `mqtt://127.0.0.1:${mqttPort}`, "--tenant", "bench", "--feed", `footprint-${name}-${run}`, "--data-dir", data.path];
  const agent = Bun.spawn([...cmd, ...args, "--listen", `127.0.0.1:${await freePort()}`, "--log-level", "warn"], {
    stdout: "ignore",
    stderr: "inherit",
    env: { ...process.env, ...v.env },
  });
  try {
    await Bun.sleep(warmupS * 1000);
    const samples: ReturnType<typeof memory>[] = [];
    const cpu0 = cpuSeconds(agent.pid);
    const t0 = performance.now();
    for (let i = 0; i < windowS; i++) {
      await Bun.sleep(1000);
      samples.push(memory(agent.pid));
    }
    const cpu = (cpuSeconds(agent.pid) - cpu0) / ((performance.now() - t0) / 1000);
    const med = (k: "rss" | "anon" | "file") => percentile(samples.map((s) => s[k]).sort((a, b) => a - b), 50);
    const max = Math.max(...samples.map((s) => s.rss));
    row(`  ${name} run ${run}: RSS median (anon + file) / max`, `${fmt(med("rss"), 1)} (${fmt(med("anon"), 1)} + ${fmt(med("file"), 1)}) / ${fmt(max, 1)} MB`);
    row(`  ${name} run ${run}: CPU`, `${fmt(cpu * 100, 2)} % of one core`);
  } finally {
    agent.kill("SIGTERM");
    await agent.exited;
    data.remove();
  }
}

const mqttPort = await freePort();
const collector = await startCollectorProcess(["--data-dir", join(work.path, "collector"), "--mqtt-port", String(mqttPort), "--mqtt-host", "127.0.0.1"]);
try {
  console.log(`agent footprint: default host metrics every 10 s, warm-up ${warmupS} s, window ${windowS} s, ${runs} run(s) each`);
  for (const [name, v] of Object.entries(variants)) {
    if (only.length && !only.includes(name)) continue;
    const cmd = await v.cmd();
    for (let run = 1; run <= runs; run++) await measure(name, v, cmd, mqttPort, run);
  }
} finally {
  collector.proc.kill("SIGTERM");
  await collector.proc.exited;
  work.remove();
}
