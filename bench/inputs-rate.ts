#!/usr/bin/env bun
/**
 * The highest rates the agent's push inputs hold (issue 27 item 7), the agent forwarding to a
 * collector (embedded broker) all along:
 *
 * - OTLP/HTTP protobuf, closed loop (CONCURRENCY requests in flight of 1,000 points each) for
 *   DURATION_S: points accepted a second, and whether every one was buffered (none refused,
 *   none dropped) and acknowledged by the collector afterwards;
 * - StatsD over UDP, one line a datagram, at each of RATES lines a second for DURATION_S: lines
 *   the agent took, and the kernel's drops (`/proc/net/snmp`, Udp InErrors,
 *   machine-wide) — the first rate with drops is where the kernel starts dropping.
 *
 * Usage: bun bench/inputs-rate.ts   (env DURATION_S=60, CONCURRENCY=4, RATES=25000,50000,100000,200000)
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BUN, fmt, freePort, ROOT, row, startCollectorProcess, tempDir } from "./_lib.ts";

const DURATION_S = Number(process.env.DURATION_S ?? 60);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const RATES = (process.env.RATES ?? "25000,50000,100000,200000").split(",").map(Number);
const work = tempDir("outpost-bench-rate-");
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

function cpu(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** Udp InErrors of the whole machine (RcvbufErrors, full receive buffers, are counted in it). */
function udpDrops(): number {
  const lines = readFileSync("/proc/net/snmp", "utf8").split("\n").filter((l) => l.startsWith("Udp:"));
  const names = lines[0]!.split(/\s+/);
  const values = lines[1]!.split(/\s+/).map(Number);
  return values[names.indexOf("InErrors")]!;
}

async function metric(url: string, name: string, labels = ""): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels} `));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

async function runJson(script: string, env: Record<string, string>): Promise<Record<string, number>> {
  const p = Bun.spawn([BUN, join(ROOT, script)], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
  const text = await new Response(p.stdout).text();
  await p.exited;
  return JSON.parse(text.trim().split("\n").pop()!);
}

const mqttPort = await freePort();
const collector = await startCollectorProcess(["--mqtt-port", String(mqttPort), "--data-dir", join(work.path, "collector"), "--synchronous", "NORMAL"]);
const udpPort = await freePort();
const listen = await freePort();
const config = join(work.path, "agent.toml");
writeFileSync(config, `[agent]\n[agent.inputs.statsd]\nudp = "127.0.0.1:${udpPort}"\nflush_interval = "10s"\n`);
const agent = Bun.spawn([BUN, join(ROOT, "agent/main.ts"), "--config", config, "--broker", `mqtt://127.0.0.1:${mqttPort}`, "--tenant", "bench", "--feed", "rate", "--data-dir", join(work.path, "agent"), "--listen", `127.0.0.1:${listen}`, "--log-level", "warn"], {
  stdout: "ignore",
  stderr: "inherit",
});
const agentUrl = `http://127.0.0.1:${listen}`;
for (let i = 0; i < 300 && !(await fetch(`${agentUrl}/health`).catch(() => undefined))?.ok; i++) await Bun.sleep(100);

console.log(`duration ${DURATION_S} s a step; load average at start: ${loadavg()}`);
try {
  // OTLP
  const s0 = await metric(agentUrl, "outpost_agent_input_samples_total", '{input="otlp"}');
  const c0 = cpu(agent.pid);
  const o = await runJson("bench/_otlp-load.ts", { URL: `${agentUrl}/v1/metrics`, CONCURRENCY: String(CONCURRENCY), DURATION: String(DURATION_S * 1000), METRICS: "10", POINTS: "100" });
  const cpuOtlp = cpu(agent.pid) - c0;
  // Each request also brings one target_info sample (its resource's other attributes).
  const taken = (await metric(agentUrl, "outpost_agent_input_samples_total", '{input="otlp"}')) - s0 - o.requests!;
  const drainStart = Date.now();
  while ((await metric(agentUrl, "outpost_agent_buffer_points")) > 0 && Date.now() - drainStart < 120_000) await Bun.sleep(500);
  const left = await metric(agentUrl, "outpost_agent_buffer_points");
  const dropped = (await metric(agentUrl, "outpost_agent_points_dropped_size_total")) + (await metric(agentUrl, "outpost_agent_points_dropped_age_total")) + (await metric(agentUrl, "outpost_agent_points_dropped_rejected_total"));
  row("OTLP protobuf: points accepted a second", `${fmt(o.points! / DURATION_S)} (${fmt(o.requests!)} requests of 1,000, ${CONCURRENCY} in flight)`);
  row("OTLP: refused requests / partial successes", `${o.errors} / ${o.partial}`);
  row("OTLP: points buffered vs accepted", `${fmt(taken)} vs ${fmt(o.points!)} (${taken === o.points ? "none lost" : "MISMATCH"})`);
  row("OTLP: buffer after the run", `${fmt(left)} points left after ${((Date.now() - drainStart) / 1000).toFixed(1)} s, ${fmt(dropped)} dropped`);
  row("OTLP: agent CPU-s per million points", ((cpuOtlp / o.points!) * 1e6).toFixed(2));

  // StatsD over UDP
  for (const rate of RATES) {
    const d0 = udpDrops();
    const t0 = await metric(agentUrl, "outpost_agent_input_samples_total", '{input="statsd"}');
    const k0 = cpu(agent.pid);
    const r = await runJson("bench/_statsd-load.ts", { PORT: String(udpPort), RATE: String(rate), DURATION: String(DURATION_S * 1000) });
    await Bun.sleep(500);
    const got = (await metric(agentUrl, "outpost_agent_input_samples_total", '{input="statsd"}')) - t0;
    const drops = udpDrops() - d0;
    row(`StatsD UDP at ${fmt(rate)} lines/s`, `sent ${fmt(r.sent! / r.seconds!)}/s, agent took ${fmt(got)} of ${fmt(r.sent!)} (${fmt(r.sent! - got)} lost), kernel drops ${fmt(drops)}, agent ${(((cpu(agent.pid) - k0) / r.seconds!) * 100).toFixed(0)} % of a core`);
  }
  console.log(`load average at end: ${loadavg()}`);
} finally {
  agent.kill("SIGTERM");
  await agent.exited;
  collector.proc.kill("SIGTERM");
  await collector.proc.exited;
  work.remove();
}
