#!/usr/bin/env bun
/**
 * The rollup tiers under sustained ingest (docs/storage.md, "The roller on the second core"):
 * HTTP JSON writes of 1,000 series (batches of 5,000 points, 4 in flight) as fast as the
 * collector takes them for DURATION seconds (60), with the roller's steps in its worker thread
 * (the default) and then on the main thread (`--no-rollup-worker`), one after the other. Every
 * 5 s: points written, sealed chunks not yet rolled up, chunks rolled up, the roller's seconds;
 * at the end the rate, the collector's CPU during the load, and how long after the load the
 * tiers held every sealed chunk. MODES=worker or MODES=main runs one of them.
 */
import { cpuSeconds, startCollectorProcess, tempDir } from "./_lib.ts";

const DURATION_MS = Number(process.env.DURATION ?? 60) * 1000;
const SERIES = 1000;
const BATCH = 5000;
const IN_FLIGHT = 4;
const MODES = (process.env.MODES ?? "worker,main").split(",").map((m) => m.trim());
const H = { "Content-Type": "application/json", "Hawkular-Tenant": "bench" };
/** A month ago, a point a second per series: every batch holds 5 seconds of each series. */
const T0 = Date.now() - 30 * 86_400_000;

async function metric(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = new RegExp(`^${name} ([0-9.e+-]+)$`, "m").exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

async function run(mode: string): Promise<void> {
  const dir = tempDir("rollup-keeping-up-");
  const { proc, url } = await startCollectorProcess(["--data-dir", dir.path, "--mqtt-port", "0", ...(mode === "main" ? ["--no-rollup-worker"] : [])]);
  let next = 0;
  const body = () => {
    const per = BATCH / SERIES;
    const at = next;
    next += per;
    return JSON.stringify(
      Array.from({ length: SERIES }, (_, s) => ({ id: `s${s}`, data: Array.from({ length: per }, (_, k) => ({ timestamp: T0 + (at + k) * 1000, value: s + Math.sin((at + k) / 10) })) })),
    );
  };
  let sent = 0;
  let stopped = false;
  const cpu0 = cpuSeconds(proc.pid);
  const started = performance.now();
  const senders = Array.from({ length: IN_FLIGHT }, async () => {
    while (!stopped) {
      const r = await fetch(`${url}/hawkular/metrics/gauges/raw`, { method: "POST", headers: H, body: body() });
      if (!r.ok) throw new Error(`write answered ${r.status}: ${await r.text()}`);
      sent += BATCH;
    }
  });
  console.log(`${mode === "main" ? "roller on the main thread (--no-rollup-worker)" : "roller's steps in its worker thread (default)"}:`);
  while (performance.now() - started < DURATION_MS) {
    await Bun.sleep(5000);
    const s = (performance.now() - started) / 1000;
    const pending = await metric(url, "outpost_collector_rollup_pending_chunks");
    const rolled = await metric(url, "outpost_collector_rollup_chunks_total");
    const seconds = await metric(url, "outpost_collector_rollup_seconds_total");
    console.log(`  ${s.toFixed(0).padStart(3)} s  ${(sent / 1e6).toFixed(1).padStart(6)} M points  pending chunks ${String(pending).padStart(6)}  rolled ${String(rolled).padStart(7)}  roller ${seconds.toFixed(1)} s`);
  }
  stopped = true;
  await Promise.all(senders);
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(proc.pid) - cpu0;
  const t1 = performance.now();
  while ((await metric(url, "outpost_collector_rollup_pending_chunks")) > 0 && performance.now() - t1 < 600_000) await Bun.sleep(250);
  const after = (performance.now() - t1) / 1000;
  const cpuAfter = cpuSeconds(proc.pid) - cpu0 - cpu;
  console.log(
    `  ingest ${(sent / seconds / 1e6).toFixed(2)} M points/s, collector ${cpu.toFixed(1)} CPU-s during the load (${((cpu / sent) * 1e6).toFixed(3)} per M points); every sealed chunk rolled up ${after.toFixed(1)} s after it, ${cpuAfter.toFixed(1)} CPU-s more`,
  );
  proc.kill("SIGTERM");
  await proc.exited;
  dir.remove();
}

for (const mode of MODES) {
  if (mode !== "worker" && mode !== "main") throw new Error(`MODES: unknown mode ${mode} (worker, main)`);
  await run(mode);
}
