#!/usr/bin/env bun
/**
 * Idle footprint of the agent with the default host metrics (every 10 s), connected to a
 * collector (embedded broker) that acknowledges everything, so the buffer stays empty.
 * For each way of running the agent: VmRSS (median and max over the window) and CPU time
 * as a share of one core over the window, after a warm-up.
 *
 * Usage: bun bench/agent-footprint.ts [warmupSeconds=20] [windowSeconds=60] [variant ...]
 * Variants: bun, bun-smol, binary, binary-smol (the binaries are built into a temp folder).
 */
import { join } from "node:path";
import { BUN, cpuSeconds, fmt, freePort, percentile, ROOT, row, rssMB, startCollectorProcess, tempDir } from "./_lib.ts";

const [warmupArg, windowArg, ...only] = process.argv.slice(2);
const warmupS = Number(warmupArg ?? 20);
const windowS = Number(windowArg ?? 60);

const work = tempDir("outpost-footprint-");

async function build(out: string, smol: boolean): Promise<string> {
  const path = join(work.path, out);
  const args = [BUN, "build", "--compile", "--minify", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig"];
  if (smol) args.push("--compile-exec-argv=--smol");
  const p = Bun.spawn([...args, join(ROOT, "agent/main.ts"), "--outfile", path], { stdout: "ignore", stderr: "inherit" });
  if ((await p.exited) !== 0) throw new Error(`building ${out} failed`);
  return path;
}

const variants: Record<string, () => Promise<string[]>> = {
  bun: async () => [BUN, join(ROOT, "agent/main.ts")],
  "bun-smol": async () => [BUN, "--smol", join(ROOT, "agent/main.ts")],
  binary: async () => [await build("agent", false)],
  "binary-smol": async () => [await build("agent-smol", true)],
};

async function measure(name: string, cmd: string[], mqttPort: number): Promise<void> {
  const data = tempDir("outpost-footprint-agent-");
  const agent = Bun.spawn(
    [...cmd, "--broker", `mqtt://127.0.0.1:${mqttPort}`, "--tenant", "bench", "--feed", `footprint-${name}`, "--data-dir", data.path, "--listen", `127.0.0.1:${await freePort()}`, "--log-level", "warn"],
    { stdout: "ignore", stderr: "inherit" },
  );
  try {
    await Bun.sleep(warmupS * 1000);
    const rss: number[] = [];
    const cpu0 = cpuSeconds(agent.pid);
    const t0 = performance.now();
    for (let i = 0; i < windowS; i++) {
      await Bun.sleep(1000);
      rss.push(rssMB(agent.pid));
    }
    const cpu = (cpuSeconds(agent.pid) - cpu0) / ((performance.now() - t0) / 1000);
    rss.sort((a, b) => a - b);
    row(`  ${name}: RSS median / max`, `${fmt(percentile(rss, 50), 1)} / ${fmt(rss.at(-1)!, 1)} MB`);
    row(`  ${name}: CPU`, `${fmt(cpu * 100, 2)} % of one core`);
  } finally {
    agent.kill("SIGTERM");
    await agent.exited;
    data.remove();
  }
}

const mqttPort = await freePort();
const collector = await startCollectorProcess(["--data-dir", join(work.path, "collector"), "--mqtt-port", String(mqttPort), "--mqtt-host", "127.0.0.1"]);
try {
  console.log(`agent footprint: default host metrics every 10 s, warm-up ${warmupS} s, window ${windowS} s`);
  for (const [name, cmd] of Object.entries(variants)) {
    if (only.length && !only.includes(name)) continue;
    await measure(name, await cmd(), mqttPort);
  }
} finally {
  collector.proc.kill("SIGTERM");
  await collector.proc.exited;
  work.remove();
}
