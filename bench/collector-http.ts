#!/usr/bin/env bun
/**
 * Collector over HTTP JSON: ingest of SERIES × POINTS gauge points in batches of 5,000
 * (POST /gauges/raw, CONCURRENCY requests in flight), counted until the last batch is
 * answered (a 200 means committed and readable) and checked with raw reads; then query
 * latency p50/p99 for the workloads of issue 9, at 1× and 10× (series and range).
 * Env: SCALES="1,10" to choose.
 */
import { fmt, latency, row, rssMB, startCollectorProcess, tempDir } from "./_lib.ts";

const DAY = 86_400_000;
const STEP = 10_000;
const BATCH = 5000;
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
// Answers uncompressed unless a row asks for gzip: the figures time the server's work.
const HEADERS = { "Content-Type": "application/json", "Hawkular-Tenant": "bench", "Accept-Encoding": "identity" };

/** Batches in time order: each holds consecutive (time, series) points, grouped per series. */
function buildBodies(series: number, points: number, end: number): string[] {
  const bodies: string[] = [];
  let group = new Map<number, { timestamp: number; value: number }[]>();
  let n = 0;
  const flush = () => {
    bodies.push(JSON.stringify([...group].map(([s, data]) => ({ id: `bench.s${s}`, data }))));
    group = new Map();
    n = 0;
  };
  for (let j = 0; j < points; j++) {
    const t = end - (points - j) * STEP;
    for (let s = 0; s < series; s++) {
      let arr = group.get(s);
      if (!arr) group.set(s, (arr = []));
      arr.push({ timestamp: t, value: (s % 100) + Math.sin(j / 10) * 10 });
      if (++n === BATCH) flush();
    }
  }
  if (n) flush();
  return bodies;
}

async function ingest(url: string, bodies: string[]): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const res = await fetch(`${url}/hawkular/metrics/gauges/raw`, { method: "POST", headers: HEADERS, body });
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return (performance.now() - started) / 1000;
}

async function countPoints(url: string, id: string, start: number, end: number): Promise<number> {
  const res = await fetch(`${url}/hawkular/metrics/gauges/${id}/raw?start=${start}&end=${end}`, { headers: HEADERS });
  return res.status === 204 ? 0 : ((await res.json()) as unknown[]).length;
}

async function scale(k: number) {
  const series = 1000 * k;
  const points = 1000;
  const weekPoints = (7 * DAY * k) / STEP;
  const dir = tempDir("outpost-bench-http-");
  const { proc, url } = await startCollectorProcess(["--data-dir", dir.path, "--mqtt-port", "0", "--synchronous", "FULL"]);
  try {
    const end = Date.now();
    const bodies = buildBodies(series, points, end);
    const secs = await ingest(url, bodies);
    const total = series * points;
    const sample = await countPoints(url, `bench.s${series - 1}`, end - points * STEP - 1, end + 1);
    row(`ingest HTTP JSON, ${fmt(series)} series × ${points} points, batches of ${BATCH}`, `${fmt(total / secs)} points/s (${secs.toFixed(2)} s, ${CONCURRENCY} in flight)`);
    row("  queryable when the last batch is answered", sample === points ? `yes (${sample} points read back)` : `NO: ${sample}/${points}`);
    row("  collector RSS after ingest", `${fmt(rssMB(proc.pid), 1)} MB`);

    // One long metric: a week (× k) of 10 s points, kept past the default retention.
    await fetch(`${url}/hawkular/metrics/gauges`, { method: "POST", headers: HEADERS, body: JSON.stringify({ id: "bench.week", dataRetention: 7 * k + 1 }) });
    const weekStart = end - weekPoints * STEP;
    const week = Array.from({ length: weekPoints }, (_, i) => ({ timestamp: weekStart + i * STEP, value: Math.sin(i / 360) * 50 + (i % 7) }));
    for (let i = 0; i < week.length; i += BATCH) {
      await fetch(`${url}/hawkular/metrics/gauges/bench.week/raw`, { method: "POST", headers: HEADERS, body: JSON.stringify(week.slice(i, i + BATCH)) });
    }
    // Queries are timed once the ingest burst has settled (background flush, garbage collection).
    await Bun.sleep(3000);
    const get =
      (path: string, encoding = "identity") =>
      async () => {
        const res = await fetch(url + path, { headers: { ...HEADERS, "Accept-Encoding": encoding } });
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
        await res.arrayBuffer();
      };
    const rawPath = `/hawkular/metrics/gauges/bench.week/raw?start=${weekStart}&end=${end + 1}&limit=10000`;
    const raw = await latency(get(rawPath), 100);
    row("  raw read of 10,000 points (newest first, JSON)", `p50 ${raw.p50.toFixed(2)} ms  p99 ${raw.p99.toFixed(2)} ms`);
    const gz = await latency(get(rawPath, "gzip"), 100);
    const sizes = await Promise.all(
      ["identity", "gzip"].map(async (e) => (await fetch(url + rawPath, { headers: { ...HEADERS, "Accept-Encoding": e }, decompress: false } as RequestInit)).arrayBuffer()),
    );
    row(
      "  the same, gzip-compressed (as clients that accept gzip get it)",
      `p50 ${gz.p50.toFixed(2)} ms  p99 ${gz.p99.toFixed(2)} ms, ${fmt(sizes[0]!.byteLength / 1024)} → ${fmt(sizes[1]!.byteLength / 1024)} KiB`,
    );
    const st = await latency(get(`/hawkular/metrics/gauges/bench.week/stats?start=${weekStart}&end=${end + 1}&buckets=60`), 100);
    row(`  60-bucket stats over ${k === 1 ? "one week" : `${k} weeks`} of 10 s data (${fmt(weekPoints)} points)`, `p50 ${st.p50.toFixed(2)} ms  p99 ${st.p99.toFixed(2)} ms`);
    // Stacked stats over every ingested series (selected by id list in a POST query).
    const ids = Array.from({ length: series }, (_, s) => `bench.s${s}`);
    const stackedQuery = async () => {
      const res = await fetch(`${url}/hawkular/metrics/gauges/stats/query`, {
        method: "POST",
        headers: HEADERS,
        body: JSON.stringify({ metrics: ids, start: end - points * STEP, end: end + 1, buckets: 60, stacked: true }),
      });
      if (res.status !== 200) throw new Error(`stacked answered ${res.status}`);
      await res.arrayBuffer();
    };
    const sq = await latency(stackedQuery, 20, 2);
    row(`  stacked 60-bucket stats over ${fmt(series)} series`, `p50 ${sq.p50.toFixed(1)} ms  p99 ${sq.p99.toFixed(1)} ms`);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    dir.remove();
  }
}

const scales = (process.env.SCALES ?? "1,10").split(",").map(Number);
console.log(`collector over HTTP JSON (separate process, synchronous=FULL), client in this process`);
for (const k of scales) {
  console.log(`\n### scale ${k}×`);
  await scale(k);
}
