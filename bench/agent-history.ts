#!/usr/bin/env bun
/**
 * The agent's local history during an outage: 24 h of one host's default metrics (95 series
 * at 10 s, bench/_host-data.ts) in a real agent's buffer, acknowledged and kept in its local
 * window and compacted as the agent does it, read over HTTP from a real agent process that
 * cannot reach any broker (what a technician on site sees). Prints the p50 and p99 of a raw
 * read of one series over the 24 h, of 60-bucket stats of every series (one request per
 * series, the whole pass timed), and of a PromQL range query of one series; the agent's CPU
 * time for those reads; and its RSS with the local window off, on (holding the day) before
 * any read, and on after the reads. Prints the load average, since the machine may be shared.
 *
 * Usage: bun bench/agent-history.ts [runs=30]
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { DEFAULT_COMPACTION } from "../agent/buffer/compaction.ts";
import { PointBuffer } from "../agent/buffer/point-buffer.ts";
import type { MetricWrite } from "../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../src/protocol/cbor.ts";
import { openDatabase } from "../src/sqlite/open.ts";
import { aligned, type Series, simulatedHost } from "./_host-data.ts";
import { BUN, cpuSeconds, fmt, freePort, latency, ROOT, row, tempDir } from "./_lib.ts";

const runs = Number(process.argv[2] ?? 30);
const STEP = 10_000;
const DAY_SAMPLES = 8640;
const TENANT = "bench";
const FEED = "host-1";

function memory(pid: number): { rss: number; anon: number; file: number } {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+) kB`).exec(s)?.[1] ?? Number.NaN) / 1024;
  return { rss: mb("VmRSS"), anon: mb("RssAnon"), file: mb("RssFile") };
}

/** 24 h up to now, appended tick by tick, acknowledged at once (kept in the window), compacted once a minute, on a clock that ends now. */
async function prefill(dataDir: string, set: Series[]): Promise<number> {
  const end = Math.floor(Date.now() / STEP) * STEP;
  const start = end - DAY_SAMPLES * STEP;
  const clock = { t: start };
  const dec = createDecoder();
  const buffer = new PointBuffer(
    openDatabase(join(dataDir, "buffer.db"), { synchronous: "NORMAL" }),
    { tenant: TENANT, feed: FEED },
    { maxBytes: 256 * 1024 ** 2, maxAgeMs: 30 * 86_400_000, chunkPoints: 5000, historyMs: 86_400_000 },
    createEncoder(),
    {},
    () => clock.t,
    0,
  );
  for (let i = 0; i < DAY_SAMPLES; i++) {
    clock.t = start + i * STEP + 3;
    const writes: MetricWrite[] = set.map((s) => ({ type: s.id.includes("_total") ? "counter" : "gauge", id: `${FEED}:${s.id}`, points: [{ timestamp: start + i * STEP, value: s.values[i]! }] }));
    await buffer.append(writes);
    const span = buffer.read(0, buffer.maxId(), 1e9);
    if (span) buffer.remove(span.lo, span.hi);
    buffer.flush();
    if (i % 6 === 5) buffer.compact(dec, DEFAULT_COMPACTION);
  }
  const points = buffer.history.depth.points;
  console.log(`prefilled: ${fmt(points)} points kept, ${fmt(buffer.history.depth.bytes / 2 ** 20, 2)} MiB counted, ${fmt(buffer.history.depth.rows)} rows`);
  buffer.close();
  return start;
}

async function startAgent(dataDir: string, extra: string[]): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string }> {
  const port = await freePort();
  const deadPort = await freePort(); // no broker there: the agent is offline
  const proc = Bun.spawn(
    [BUN, join(ROOT, "agent/main.ts"), "--tenant", TENANT, "--feed", FEED, "--data-dir", dataDir, "--listen", `127.0.0.1:${port}`, "--broker", `mqtt://127.0.0.1:${deadPort}`, "--log-level", "error", ...extra],
    { stdout: "ignore", stderr: "inherit" },
  );
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30_000; ; ) {
    if ((await fetch(`${url}/health`).catch(() => undefined))?.status === 200) break;
    if (Date.now() > deadline) throw new Error("agent did not start");
    await Bun.sleep(50);
  }
  return { proc, url };
}

async function settledMemory(pid: number): Promise<ReturnType<typeof memory>> {
  await Bun.sleep(10_000);
  return memory(pid);
}

const set = simulatedHost(DAY_SAMPLES).map(aligned);
const work = tempDir("outpost-history-bench-");
try {
  console.log(`load average before: ${loadavg().map((l) => fmt(l, 2)).join(" ")}; ${runs} runs per read`);
  const on = join(work.path, "on");
  const start = await prefill(on, set);
  const end = start + DAY_SAMPLES * STEP;

  // Window off: a fresh agent, idle.
  const offAgent = await startAgent(join(work.path, "off"), ["--history", '{"window":"0"}']);
  const off = await settledMemory(offAgent.proc.pid);
  offAgent.proc.kill("SIGTERM");
  await offAgent.proc.exited;

  const agent = await startAgent(on, []);
  const before = await settledMemory(agent.proc.pid);
  const ids = set.map((s) => ({ id: `${FEED}:${s.id}`, type: s.id.includes("_total") ? "counters" : "gauges" }));
  const one = ids.find((i) => i.id.includes("cpu_usage_percent")) ?? ids[0]!;
  const get = async (path: string) => {
    const r = await fetch(`${agent.url}${path}`);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  const rawPath = `/svc/metrics/${one.type}/${encodeURIComponent(one.id)}/raw?start=${start}&end=${end}`;
  // One read of each kind loads the read code (zod, the PromQL parser) and parses the rows once.
  const points = ((await get(rawPath)) as unknown[]).length;
  await get(`/api/v1/query?query=${encodeURIComponent(`{__name__="${one.id}"}`)}&time=${end / 1000}`);
  const loaded = await settledMemory(agent.proc.pid);
  const cpu0 = cpuSeconds(agent.proc.pid);
  const raw = await latency(() => get(rawPath), runs);
  const stats = await latency(async () => {
    for (const i of ids) await get(`/svc/metrics/${i.type}/${encodeURIComponent(i.id)}/stats?start=${start}&end=${end}&buckets=60`);
  }, Math.max(5, Math.floor(runs / 3)), 2);
  const promql = await latency(() => get(`/api/v1/query_range?query=${encodeURIComponent(`avg_over_time({__name__="${one.id}"}[5m])`)}&start=${start / 1000}&end=${end / 1000}&step=60`), runs);
  const cpu = cpuSeconds(agent.proc.pid) - cpu0;
  const after = memory(agent.proc.pid);
  const settled = await settledMemory(agent.proc.pid);
  agent.proc.kill("SIGTERM");
  await agent.proc.exited;

  row(`raw read, one series, 24 h (${fmt(points)} points)`, `p50 ${fmt(raw.p50, 1)} ms, p99 ${fmt(raw.p99, 1)} ms`);
  row(`60-bucket stats of all ${ids.length} series, 24 h (one request each)`, `p50 ${fmt(stats.p50, 0)} ms per pass (${fmt(stats.p50 / ids.length, 2)} ms per series), p99 ${fmt(stats.p99, 0)} ms`);
  row("PromQL avg_over_time(5m) of one series, 24 h at 60 s", `p50 ${fmt(promql.p50, 1)} ms, p99 ${fmt(promql.p99, 1)} ms`);
  row("agent CPU for all those reads", `${fmt(cpu, 2)} s`);
  const mem = (m: ReturnType<typeof memory>) => `${fmt(m.rss, 1)} MB (anon ${fmt(m.anon, 1)} + file ${fmt(m.file, 1)})`;
  row("agent RSS, local window off, idle", mem(off));
  row("agent RSS, window on holding 24 h, before any read", mem(before));
  row("agent RSS, window on, after a first read of each kind (code loaded, rows parsed)", mem(loaded));
  row("agent RSS, window on, right after all the reads", mem(after));
  row("agent RSS, window on, 10 s after the reads", mem(settled));
  console.log(`load average after: ${loadavg().map((l) => fmt(l, 2)).join(" ")}`);
} finally {
  work.remove();
}
