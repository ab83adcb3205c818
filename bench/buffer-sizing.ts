#!/usr/bin/env bun
/**
 * Sizing figures for docs/install.md: what a point costs on disk in the agent's buffer (host
 * metrics, and local writes) and in the collector's store, and so how long a buffer lasts
 * through an outage and how much disk a collector needs per agent.
 *
 *   bun bench/buffer-sizing.ts [hostSeconds=30] [localPoints=500000] [collectorPoints=1000000]
 *
 * Host metrics are collected every 100 ms for `hostSeconds` into an agent that cannot reach any
 * broker, so everything stays in its buffer; sizes come from the agent's own /metrics. Figures
 * are byte counts, not timings: they do not depend on how busy the machine is.
 */
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import { BUN, fmt, freePort, ROOT, row, startCollectorProcess, tempDir } from "./_lib.ts";

const [hostArg, localArg, collectorArg] = process.argv.slice(2);
const hostSeconds = Number(hostArg ?? 30);
const localPoints = Number(localArg ?? 500_000);
const collectorPoints = Number(collectorArg ?? 1_000_000);
const work = tempDir("outpost-sizing-");

function sample(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

async function agentBuffer(label: string, extra: string[], feed: (url: string) => Promise<number>): Promise<{ points: number; bytes: number; file: number }> {
  const port = await freePort();
  const dead = await freePort();
  const p = Bun.spawn([BUN, join(ROOT, "agent/main.ts"), "--tenant", "bench", "--feed", label, "--data-dir", join(work.path, label), "--broker", `mqtt://127.0.0.1:${dead}`, "--listen", `127.0.0.1:${port}`, "--log-level", "error", "--interval", "1h", ...extra], { stderr: "inherit" });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if ((await fetch(`${url}/health`).catch(() => undefined))?.status === 200) break;
    await Bun.sleep(50);
  }
  await feed(url);
  await Bun.sleep(1500);
  const text = await (await fetch(`${url}/metrics`)).text();
  p.kill("SIGTERM");
  await p.exited;
  return { points: sample(text, "outpost_agent_buffer_points"), bytes: sample(text, "outpost_agent_buffer_bytes"), file: statSync(join(work.path, label, "buffer.db")).size };
}

/** A random walk rounded as sensors and counters report (two decimals). */
function walk(n: number, seed: number): number[] {
  let x = 50 + seed;
  let s = seed * 9301 + 49297;
  return Array.from({ length: n }, () => {
    s = (s * 9301 + 49297) % 233280;
    x += (s / 233280 - 0.5) * 2;
    return Math.round(x * 100) / 100;
  });
}

async function pushWrites(url: string, series: number, perSeries: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  const t0 = Date.now() - perSeries * 10_000;
  const batch = Math.max(1, Math.floor(5000 / perSeries));
  for (let s = 0; s < series; s += batch) {
    const body = [];
    for (let k = s; k < Math.min(series, s + batch); k++) {
      const v = walk(perSeries, k);
      body.push({ id: `sized.${k}`, dataPoints: v.map((value, i) => ({ timestamp: t0 + i * 10_000, value })) });
    }
    const chunks = [];
    for (const b of body) {
      for (let i = 0; i < b.dataPoints.length; i += 5000) chunks.push([{ id: b.id, dataPoints: b.dataPoints.slice(i, i + 5000) }]);
    }
    for (const c of chunks) {
      const r = await fetch(`${url}${path}`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(c) });
      if (r.status !== 200) throw new Error(`write answered ${r.status}`);
    }
  }
  return series * perSeries;
}

console.log("agent buffer and collector store: bytes per point");

const host = await agentBuffer("host", ["--host-interval", "100ms"], async () => {
  await Bun.sleep(hostSeconds * 1000);
  return 0;
});
row(`agent buffer, host metrics (default series, ${hostSeconds} s at 100 ms)`, `${fmt(host.points)} points, ${fmt(host.bytes / host.points, 1)} B/point counted, ${fmt(host.file / host.points, 1)} B/point on disk`);

const local = await agentBuffer("local", ["--no-host-metrics"], (url) => pushWrites(url, 100, localPoints / 100, "/svc/metrics/gauges/raw"));
row(`agent buffer, local writes (100 series, ${fmt(localPoints)} points, 10 s apart)`, `${fmt(local.bytes / local.points, 1)} B/point counted, ${fmt(local.file / local.points, 1)} B/point on disk`);

const c = await startCollectorProcess(["--data-dir", join(work.path, "collector"), "--mqtt-port", "0", "--self-metrics-interval", "0", "--default-retention", "36500"]);
const written = await pushWrites(c.url, 1000, collectorPoints / 1000, "/svc/metrics/gauges/raw", { "Svc-Tenant": "bench" });
c.proc.kill("SIGTERM");
await c.proc.exited;
const fileBytes = statSync(join(work.path, "collector/metrics.db")).size;
// The ingest log's rows are deleted once flushed, leaving free pages the file keeps (and reuses).
const db = new Database(join(work.path, "collector/metrics.db"), { readonly: true });
const pragma = (name: string) => (db.query(`PRAGMA ${name}`).get() as Record<string, number>)[name]!;
const dbBytes = (pragma("page_count") - pragma("freelist_count")) * pragma("page_size");
db.close();
row(`collector metrics.db (1,000 series, ${fmt(written)} points, flushed)`, `${fmt(dbBytes / written, 1)} B/point in use, file ${fmt(fileBytes / written, 1)} B/point`);

const perDay = (86_400 / 10) * 95;
row("  → a host's default metrics every 10 s, per day", `${fmt(perDay)} points: buffer ${fmt((perDay * host.file) / host.points / 1024 ** 2, 1)} MB, collector ${fmt((perDay * dbBytes) / written / 1024 ** 2, 1)} MB`);
work.remove();
