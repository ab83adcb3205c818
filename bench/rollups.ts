#!/usr/bin/env bun
/**
 * Rollup tiers (issue 30; docs/storage.md, "Rollup tiers"): a year of 10-second points of 100
 * host series, written into a collector's store through its write path (writeColumns: group
 * commit, log, heads, sealing) with the roller computing the tiers as the collector does after
 * each flush; then, against the collector process on that data folder:
 *
 * - disk per tier and in all;
 * - p50/p99 of a 60-bucket stats query and of a 60-step `rate` over 30 and 365 days, for 1 and
 *   for 100 series, read through the tiers and read raw (request header Outpost-Resolution: raw),
 *   with the collector's CPU seconds and minor page faults per query;
 * - VictoriaMetrics and InfluxDB 1.x (Debian's packages) holding the same year, same queries.
 *
 * DAYS (365), SERIES (100), STEP_S (10) scale it down for a quick look. The machine is usually
 * shared: compare within a run, and read the load average printed with it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { openSqliteMetricsStore } from "../collector/store/metrics/sqlite/store.ts";
import { DEFAULT_ROLLUP_TIERS, parseRollupTiers } from "../src/metrics/rollup/tiers.ts";
import { cpuSeconds, fmt, folderBytes, freePort, rssMB, startCollectorProcess, tempDir } from "./_lib.ts";

const DAYS = Number(process.env.DAYS ?? 365);
const SERIES = Number(process.env.SERIES ?? 100);
const STEP = Number(process.env.STEP_S ?? 10) * 1000;
const DAY = 86_400_000;
const PER_DAY = DAY / STEP;
/** The year ends at today's midnight (UTC): queries end there, on every tier's grid. */
const END = Math.floor(Date.now() / DAY) * DAY;
const START = END - DAYS * DAY;
const TENANT = "bench";
const SYSTEMS = process.env.SYSTEMS?.split(",").map((s) => s.trim().toLowerCase());
const wants = (name: string) => !SYSTEMS || SYSTEMS.includes(name.toLowerCase());

/** Series s: half CPU-like percentages (two decimals), half byte counters (as remote write stores them: gauges). */
const isCpu = (s: number) => s % 2 === 0;
const host = (s: number) => `h${Math.floor(s / 2)}`;
const metricName = (s: number) => (isCpu(s) ? "node_cpu_usage" : "node_net_bytes_total");
const device = (s: number) => (isCpu(s) ? "cpu0" : "eth0");
const idOf = (s: number) => `${metricName(s)}{device=${device(s)},host=${host(s)}}`;

/** Deterministic noise in [0, 1). */
function noise(s: number, i: number): number {
  let x = (Math.imul(s + 1, 0x9e3779b1) ^ Math.imul(i, 0x85ebca6b)) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) >>> 0;
  return ((x ^ (x >>> 13)) >>> 0) / 2 ** 32;
}

/** Values of series s for points i0 … i0 + n − 1 (point i at START + i·STEP); `counter` carries a counter across days. */
function values(s: number, i0: number, n: number, counter: number[]): Float64Array {
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const i = i0 + k;
    if (isCpu(s)) {
      const day = Math.sin(((i % PER_DAY) / PER_DAY) * 2 * Math.PI + s);
      out[k] = Math.round((35 + 25 * day + 10 * noise(s, i)) * 100) / 100;
    } else {
      counter[s] = (counter[s] ?? 0) + Math.round(20_000 + 15_000 * noise(s, i));
      out[k] = counter[s]!;
    }
  }
  return out;
}

function minorFaults(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(fields[7]);
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

// ---- Outpost: the year into a data folder ----------------------------------------------------

async function fillOutpost(dataDir: string): Promise<{ ingestS: number; rollS: number; points: number }> {
  const s = await openSqliteMetricsStore({ dataDir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, rollupTiers: parseRollupTiers(DEFAULT_ROLLUP_TIERS) });
  await s.ensureTags(
    TENANT,
    Array.from({ length: SERIES }, (_, k) => ({ type: "gauge" as const, id: idOf(k), tags: { metric: metricName(k), host: host(k), device: device(k) } })),
  );
  const counter: number[] = [];
  let ingest = 0;
  let roll = 0;
  let points = 0;
  const started = performance.now();
  for (let d = 0; d < DAYS; d++) {
    const i0 = d * PER_DAY;
    const ts = new Float64Array(SERIES * PER_DAY);
    const vals = new Float64Array(SERIES * PER_DAY);
    for (let k = 0; k < SERIES; k++) {
      for (let j = 0; j < PER_DAY; j++) ts[k * PER_DAY + j] = START + (i0 + j) * STEP;
      vals.set(values(k, i0, PER_DAY, counter), k * PER_DAY);
    }
    const t0 = performance.now();
    await s.writeColumns(TENANT, { type: "gauge", ids: Array.from({ length: SERIES }, (_, k) => idOf(k)), counts: new Uint32Array(SERIES).fill(PER_DAY), ts, values: vals, tags: [] });
    s.flushDue();
    const t1 = performance.now();
    s.rollUp();
    const t2 = performance.now();
    ingest += t1 - t0;
    roll += t2 - t1;
    points += SERIES * PER_DAY;
    if (d % 30 === 29) console.log(`  outpost: ${d + 1} days written (${fmt(points)} points, ${((performance.now() - started) / 1000).toFixed(0)} s; write ${(ingest / 1000).toFixed(1)} s, roll-up ${(roll / 1000).toFixed(1)} s; load ${load()})`);
  }
  const t0 = performance.now();
  s.flushDue(true);
  s.rollUp();
  roll += performance.now() - t0;
  await s.close();
  return { ingestS: ingest / 1000, rollS: roll / 1000, points };
}

function diskOfTiers(dataDir: string): { file: number; chunks: number; tiers: { step: number; blocks: number; bytes: number }[] } {
  const db = new Database(join(dataDir, "metrics.db"), { readonly: true });
  try {
    const chunks = (db.query("SELECT coalesce(sum(length(body)), 0) AS b FROM chunks").get() as { b: number }).b;
    const tiers = db.query("SELECT step, count(*) AS blocks, sum(length(body)) AS bytes FROM rollups GROUP BY step ORDER BY step").all() as { step: number; blocks: number; bytes: number }[];
    return { file: folderBytes(dataDir), chunks, tiers };
  } finally {
    db.close();
  }
}

// ---- queries -----------------------------------------------------------------------------------

interface Timing {
  p50: number;
  p99: number;
  runs: number;
  cpuMs: number;
  faults: number;
  resolution?: string;
}

/**
 * Runs `q` at least 5 times (3 when a run takes seconds) and until 8 s or 50 runs have passed;
 * the server's CPU and minor page faults per run.
 */
async function timed(pid: number, q: () => Promise<string | undefined>): Promise<Timing | string> {
  const first = performance.now();
  let resolution: string | undefined;
  try {
    resolution = await q();
  } catch (e) {
    // A query the system refuses (e.g. over --query.max-samples) is reported as such.
    return `refused: ${(e as Error).message.slice(0, 160)}`;
  }
  const least = performance.now() - first > 3000 ? 3 : 5;
  const times: number[] = [];
  const cpu0 = cpuSeconds(pid);
  const f0 = minorFaults(pid);
  const started = performance.now();
  while (times.length < least || (times.length < 50 && performance.now() - started < 8000)) {
    const t = performance.now();
    resolution = await q();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  return { p50: at(0.5), p99: at(0.99), runs: times.length, cpuMs: ((cpuSeconds(pid) - cpu0) * 1000) / times.length, faults: (minorFaults(pid) - f0) / times.length, resolution };
}

async function ok(r: Response, what: string): Promise<Response> {
  if (r.status >= 300) throw new Error(`${what}: HTTP ${r.status} ${await r.text()}`);
  await r.arrayBuffer();
  return r;
}

interface Row {
  system: string;
  query: string;
  t: Timing;
}

const rows: Row[] = [];
const record = (system: string, query: string, t: Timing | string) => {
  if (typeof t === "string") {
    console.log(`  ${system.padEnd(26)} ${query.padEnd(34)} ${t}`);
    return;
  }
  rows.push({ system, query, t });
  console.log(`  ${system.padEnd(26)} ${query.padEnd(34)} p50 ${t.p50.toFixed(2).padStart(9)} ms  p99 ${t.p99.toFixed(2).padStart(9)} ms  server CPU ${t.cpuMs.toFixed(2).padStart(8)} ms/query  faults ${fmt(t.faults).padStart(7)}/query  ${t.resolution ?? ""}  (load ${load()})`);
};

/** The spans queried: 60 buckets (or steps) of 12 hours, and of 6 days, ending at today's midnight. */
const SPANS = [
  { name: "30 d", step: 12 * 3_600_000 },
  { name: "365 d", step: 6 * DAY },
].filter((s) => 60 * s.step <= DAYS * DAY);

/** Stored bytes of the raw chunks a raw read of [start, end) decodes for the series `ids`. */
function rawBytes(dataDir: string, ids: string[], start: number, end: number): number {
  const db = new Database(join(dataDir, "metrics.db"), { readonly: true });
  try {
    const q = db.query("SELECT coalesce(sum(length(c.body)), 0) AS b FROM chunks c JOIN series s ON s.sid = c.sid WHERE s.metric = ? AND c.start_ts >= ? AND c.start_ts < ? AND c.end_ts >= ?");
    let total = 0;
    for (const id of ids) total += (q.get(id, start - DAY, end, start) as { b: number }).b;
    return total;
  } finally {
    db.close();
  }
}

const readBytes = async (url: string) => Number(/^outpost_collector_rollup_read_bytes_total (\d+)/m.exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? 0);

/** Stored bytes one run of `q` reads from the tiers, against the raw chunks its series hold over the range. */
async function readWork(url: string, dataDir: string, what: string, ids: string[], start: number, end: number, q: () => Promise<unknown>): Promise<void> {
  const before = await readBytes(url);
  await q();
  const tier = (await readBytes(url)) - before;
  const raw = rawBytes(dataDir, ids, start, end);
  console.log(`  read work, ${what.padEnd(34)} tiers ${fmt(tier / 1e3).padStart(9)} kB, raw chunks ${fmt(raw / 1e3).padStart(9)} kB: ${(raw / Math.max(1, tier)).toFixed(0)}× less`);
}

async function queryOutpost(dataDir: string): Promise<void> {
  const { proc, url } = await startCollectorProcess(["--data-dir", dataDir, "--mqtt-port", "0", "--self-metrics-interval", "0"]);
  try {
    const H = { "Hawkular-Tenant": TENANT, "Content-Type": "application/json", "Accept-Encoding": "identity" };
    for (const raw of [false, true]) {
      const headers = raw ? { ...H, "Outpost-Resolution": "raw" } : H;
      const name = raw ? "Outpost, raw points" : "Outpost, tiers";
      for (const span of SPANS) {
        const start = END - 60 * span.step;
        const one = `/hawkular/metrics/gauges/${encodeURIComponent(idOf(0))}/stats?start=${start}&end=${END}&buckets=60`;
        record(name, `stats 60 buckets ${span.name}, 1 series`, await timed(proc.pid, async () => (await ok(await fetch(url + one, { headers }), "stats")).headers.get("Outpost-Resolution") ?? undefined));
        const all = Array.from({ length: SERIES }, (_, k) => idOf(k));
        const body = JSON.stringify({ ids: all, start, end: END, buckets: 60 });
        if (!raw) {
          await readWork(url, dataDir, `stats 60 buckets ${span.name}, 1 series`, [idOf(0)], start, END, () => fetch(url + one, { headers }).then((r) => r.arrayBuffer()));
          await readWork(url, dataDir, `stats 60 buckets ${span.name}, ${SERIES} series`, all, start, END, () => fetch(`${url}/hawkular/metrics/gauges/stats/query`, { method: "POST", headers, body }).then((r) => r.arrayBuffer()));
        }
        // Pooled stats of raw points hold every point of the range at once (mergeSeries): a year of
        // 100 series is 315 M points, gigabytes; the tiers are what make that chart possible.
        if (raw && span.step * 60 > 60 * DAY && SERIES * DAYS > 1000) console.log(`  ${name.padEnd(26)} stats 60 buckets ${span.name}, ${SERIES} series: not run (every raw point of the range in memory at once)`);
        else record(name, `stats 60 buckets ${span.name}, ${SERIES} series`, await timed(proc.pid, async () => (await ok(await fetch(`${url}/hawkular/metrics/gauges/stats/query`, { method: "POST", headers, body }), "stats query")).headers.get("Outpost-Resolution") ?? undefined));
        for (const [label, sel] of [["1 series", 'node_net_bytes_total{host="h0"}'], [`${SERIES} series`, '{__name__=~"node_.+"}']] as const) {
          const q = new URLSearchParams({ query: `rate(${sel}[${span.step / 1000}s])`, start: String((start + span.step) / 1000), end: String(END / 1000), step: `${span.step / 1000}s` });
          if (!raw) {
            const ids = label === "1 series" ? [idOf(1)] : Array.from({ length: SERIES }, (_, k) => idOf(k));
            await readWork(url, dataDir, `rate 60 steps ${span.name}, ${label}`, ids, start, END, () => fetch(`${url}/prometheus/${TENANT}/api/v1/query_range?${q}`, { headers }).then((r) => r.arrayBuffer()));
          }
          record(name, `rate 60 steps ${span.name}, ${label}`, await timed(proc.pid, async () => (await ok(await fetch(`${url}/prometheus/${TENANT}/api/v1/query_range?${q}`, { headers }), "rate")).headers.get("Outpost-Resolution") ?? undefined));
        }
      }
      // Any start (not on the tiers' grid): 60 buckets from now − 365 d.
      const span = SPANS.at(-1)!;
      const any = Date.now() - 60 * span.step;
      const path = `/hawkular/metrics/gauges/${encodeURIComponent(idOf(0))}/stats?start=${any}&end=${any + 60 * span.step}&buckets=60`;
      record(name, `stats 60 buckets ${span.name} any start, 1 series`, await timed(proc.pid, async () => (await ok(await fetch(url + path, { headers }), "stats")).headers.get("Outpost-Resolution") ?? undefined));
    }
    console.log(`  Outpost RSS after the queries: ${fmt(rssMB(proc.pid))} MB`);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

// ---- peers ---------------------------------------------------------------------------------------

async function waitUp(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

/** Sends a year day by day, `body(day)` the request of one day of all series, 2 in flight. */
async function sendDays(what: string, send: (d: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < DAYS) {
        const d = next++;
        await send(d);
        if (d % 60 === 59) console.log(`  ${what}: ${d + 1} days sent (${((performance.now() - started) / 1000).toFixed(0)} s, load ${load()})`);
      }
    }),
  );
  return (performance.now() - started) / 1000;
}

async function victoria(): Promise<void> {
  const dir = tempDir("rollups-vm-");
  const port = await freePort();
  const proc = Bun.spawn(["victoria-metrics", `-storageDataPath=${dir.path}`, `-httpListenAddr=127.0.0.1:${port}`, "-retentionPeriod=3y", "-search.latencyOffset=0s", "-loggerLevel=ERROR", "-search.maxPointsPerTimeseries=100000000", "-search.maxSamplesPerQuery=10000000000"], { stdout: "ignore", stderr: "inherit" });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUp(`${url}/health`);
    const counter: number[] = [];
    const cpu0 = cpuSeconds(proc.pid);
    const secs = await sendDays("VictoriaMetrics", async (d) => {
      const lines: string[] = [];
      const ts = Array.from({ length: PER_DAY }, (_, j) => START + (d * PER_DAY + j) * STEP);
      for (let k = 0; k < SERIES; k++) {
        // Made before the first await of this day's send: days are made in order, counters run on.
        const v = values(k, d * PER_DAY, PER_DAY, counter);
        lines.push(JSON.stringify({ metric: { __name__: metricName(k), host: host(k), device: device(k) }, values: Array.from(v), timestamps: ts }));
      }
      const r = await fetch(`${url}/api/v1/import`, { method: "POST", body: lines.join("\n") });
      if (r.status >= 300) throw new Error(`vm import: ${r.status} ${await r.text()}`);
    });
    await fetch(`${url}/internal/force_flush`);
    console.log(`  VictoriaMetrics: a year in ${secs.toFixed(0)} s, CPU ${(cpuSeconds(proc.pid) - cpu0).toFixed(0)} s`);
    for (const span of SPANS) {
      const start = END - 60 * span.step;
      for (const [label, sel] of [["1 series", 'node_net_bytes_total{host="h0"}'], [`${SERIES} series`, '{__name__=~"node_.+"}']] as const) {
        const q = new URLSearchParams({ query: `rate(${sel}[${span.step / 1000}s])`, start: String((start + span.step) / 1000), end: String(END / 1000), step: `${span.step / 1000}s`, nocache: "1" });
        record("VictoriaMetrics", `rate 60 steps ${span.name}, ${label}`, await timed(proc.pid, async () => void (await ok(await fetch(`${url}/api/v1/query_range?${q}`), "vm rate"))));
        const statsSel = label === "1 series" ? 'node_cpu_usage{host="h0"}' : sel;
        const stats = async () => {
          for (const fn of ["min_over_time", "avg_over_time", "max_over_time"]) {
            const s = new URLSearchParams({ query: `${fn}(${statsSel}[${span.step / 1000}s])`, start: String((start + span.step) / 1000), end: String(END / 1000), step: `${span.step / 1000}s`, nocache: "1" });
            await ok(await fetch(`${url}/api/v1/query_range?${s}`), "vm stats");
          }
          return undefined;
        };
        record("VictoriaMetrics", `stats 60 buckets ${span.name}, ${label}`, await timed(proc.pid, stats));
      }
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    console.log(`  VictoriaMetrics disk: ${fmt(folderBytes(dir.path) / 1e6)} MB (${(folderBytes(dir.path) / (DAYS * PER_DAY * SERIES)).toFixed(2)} B/pt)`);
    dir.remove();
  }
}

async function influx(): Promise<void> {
  const dir = tempDir("rollups-influx-");
  const port = await freePort();
  const rpc = await freePort();
  const conf = join(dir.path, "influxdb.conf");
  writeFileSync(
    conf,
    `reporting-disabled = true\nbind-address = "127.0.0.1:${rpc}"\n[meta]\n  dir = "${dir.path}/meta"\n[data]\n  dir = "${dir.path}/data"\n  wal-dir = "${dir.path}/wal"\n  query-log-enabled = false\n[http]\n  bind-address = "127.0.0.1:${port}"\n  log-enabled = false\n  max-body-size = 0\n[monitor]\n  store-enabled = false\n`,
  );
  const proc = Bun.spawn(["influxd", "run", "-config", conf], { stdout: "ignore", stderr: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUp(`${url}/ping`);
    await ok(await fetch(`${url}/query?q=${encodeURIComponent("CREATE DATABASE bench")}`, { method: "POST" }), "influx create db");
    const counter: number[] = [];
    const cpu0 = cpuSeconds(proc.pid);
    const secs = await sendDays("InfluxDB", async (d) => {
      const lines: string[] = [];
      for (let k = 0; k < SERIES; k++) {
        const v = values(k, d * PER_DAY, PER_DAY, counter);
        for (let j = 0; j < PER_DAY; j++) lines.push(`${metricName(k)},device=${device(k)},host=${host(k)} value=${v[j]} ${START + (d * PER_DAY + j) * STEP}`);
      }
      // Parts of about 100,000 lines: InfluxDB 1.x takes large bodies slowly.
      for (let a = 0; a < lines.length; a += 100_000) await ok(await fetch(`${url}/write?db=bench&precision=ms`, { method: "POST", body: lines.slice(a, a + 100_000).join("\n") }), "influx write");
    });
    console.log(`  InfluxDB: a year in ${secs.toFixed(0)} s, CPU ${(cpuSeconds(proc.pid) - cpu0).toFixed(0)} s`);
    for (const span of SPANS) {
      const start = END - 60 * span.step;
      const where = (one: boolean) => `${one ? "WHERE host='h0' AND" : "WHERE"} time >= ${start}ms AND time < ${END}ms`;
      for (const [label, one] of [["1 series", true], [`${SERIES} series`, false]] as const) {
        const stats = `SELECT min(value), mean(value), max(value) FROM ${one ? "node_cpu_usage" : "/node_.+/"} ${where(one)} GROUP BY time(${span.step}ms)${one ? "" : ", host"}`;
        record("InfluxDB 1.x", `stats 60 buckets ${span.name}, ${label}`, await timed(proc.pid, async () => void (await ok(await fetch(`${url}/query?db=bench&q=${encodeURIComponent(stats)}`), "influx stats"))));
        const rate = `SELECT non_negative_derivative(last(value), 1s) FROM ${one ? "node_net_bytes_total" : "/node_.+/"} ${where(one)} GROUP BY time(${span.step}ms)${one ? "" : ", host"}`;
        record("InfluxDB 1.x", `rate 60 steps ${span.name}, ${label}`, await timed(proc.pid, async () => void (await ok(await fetch(`${url}/query?db=bench&q=${encodeURIComponent(rate)}`), "influx rate"))));
      }
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    console.log(`  InfluxDB disk: ${fmt(folderBytes(dir.path) / 1e6)} MB (${(folderBytes(dir.path) / (DAYS * PER_DAY * SERIES)).toFixed(2)} B/pt)`);
    dir.remove();
  }
}

// ---- run -------------------------------------------------------------------------------------------

const installed = (bin: string) => ["/usr/bin", "/usr/local/bin", "/usr/sbin"].some((d) => existsSync(join(d, bin)));
console.log(`workload: ${SERIES} series × ${DAYS} days at ${STEP / 1000} s = ${fmt(SERIES * DAYS * PER_DAY)} points; tiers ${DEFAULT_ROLLUP_TIERS.join(", ")}; load ${load()}`);
if (wants("outpost")) {
  const dir = tempDir("rollups-outpost-");
  try {
    const w = await fillOutpost(dir.path);
    console.log(`  Outpost: written in ${w.ingestS.toFixed(0)} s (${fmt(w.points / w.ingestS)} points/s), rolled up in ${w.rollS.toFixed(0)} s (${fmt(w.points / w.rollS)} points/s; ${((w.rollS / w.points) * 1e6).toFixed(2)} CPU-s per M points at most: wall time of the rounds in this process)`);
    const disk = diskOfTiers(dir.path);
    const pts = SERIES * DAYS * PER_DAY;
    console.log(`  Outpost disk: data folder ${fmt(disk.file / 1e6)} MB (${(disk.file / pts).toFixed(2)} B/pt); raw chunks' blocks ${fmt(disk.chunks / 1e6)} MB (${(disk.chunks / pts).toFixed(2)} B/pt)`);
    for (const t of disk.tiers) console.log(`    tier ${t.step / 60_000} min: ${fmt(t.blocks)} blocks, ${fmt(t.bytes / 1e6)} MB (${((t.bytes / pts) * 100).toFixed(1)} % of a raw point's bytes per point: ${(t.bytes / (pts / (t.step / STEP))).toFixed(1)} B per bucket)`);
    await queryOutpost(dir.path);
  } finally {
    dir.remove();
  }
}
if (wants("victoriametrics") && installed("victoria-metrics")) await victoria();
if (wants("influxdb") && installed("influxd")) await influx();

console.log("\nsummary (p50 ms; server CPU ms per query)");
for (const q of [...new Set(rows.map((r) => r.query))]) {
  const cells = rows.filter((r) => r.query === q).map((r) => `${r.system}: ${r.t.p50.toFixed(2)} (${r.t.cpuMs.toFixed(1)})`);
  console.log(`  ${q.padEnd(40)} ${cells.join(" | ")}`);
}
const ratio = (a: string, b: string) => {
  for (const q of [...new Set(rows.map((r) => r.query))]) {
    const x = rows.find((r) => r.query === q && r.system === a);
    const y = rows.find((r) => r.query === q && r.system === b);
    if (x && y) console.log(`  ${q.padEnd(40)} ${b} ÷ ${a}: time ${(y.t.p50 / x.t.p50).toFixed(1)}×, server CPU ${(y.t.cpuMs / Math.max(0.01, x.t.cpuMs)).toFixed(1)}×`);
  }
};
console.log("\nraw ÷ tiers (read work: the collector's CPU per query)");
ratio("Outpost, tiers", "Outpost, raw points");
console.log(`\nload average at the end: ${load()}`);
