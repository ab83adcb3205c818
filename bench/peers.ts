#!/usr/bin/env bun
/**
 * Side by side: the same ingest and query workload against Outpost and, when installed from
 * Debian's packages, VictoriaMetrics (victoria-metrics) and InfluxDB 1.x (influxd).
 * Workload: SERIES × POINTS points at 10 s spacing, sent over HTTP in batches of 5,000 with
 * CONCURRENCY requests in flight, counted until the last series reads back complete (with the
 * CPU seconds the system's process used meanwhile, steadier than rates on a shared machine); then
 * p50/p99 of a 60-bucket min/avg/max query over the 1,000 points of one series; then each
 * system is stopped cleanly and its data folder's size is divided by the points written.
 * Outpost runs twice: lossless (its default) and with `--value-precision 12`, the precision
 * VictoriaMetrics keeps, so the disk figures compare like with like.
 * Each system gets its own process, data folder and ports; the client runs here and builds
 * every request body before the timed part (since 2026-11-24; figures before included it).
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { benchCollectorArgs, countersSince, fmt, folderBytes, freePort, latency, loadAverage, type ProcCounters, peakRssMB, procCounters, rssMB, startCollectorProcess, tempDir, waitUp } from "./_lib.ts";

const SERIES = Number(process.env.SERIES ?? 1000);
const POINTS = Number(process.env.POINTS ?? 1000);
const BATCH = 5000;
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const STEP = 10_000;
const END = Math.floor(Date.now() / 1000) * 1000 - 60_000;
const START = END - POINTS * STEP;
const QUERY_SERIES = 7;

interface Target {
  name: string;
  /** How the system's best case for "queryable" is reached, printed with the results. */
  note?: string;
  /** Starts the system; returns its pid and how to talk to it. */
  start(): Promise<Running>;
}

interface Running {
  pid: number;
  /** Stops the system cleanly; returns the bytes its data folder then holds on disk. */
  stop(): Promise<number>;
  /** The request body of one batch in the system's own format (built before the timed part). */
  body(batch: number[][]): string;
  send(body: string): Promise<void>;
  /** Makes everything sent searchable, where the system needs to be told. */
  settle?(): Promise<void>;
  count(series: number): Promise<number>;
  query(series: number): Promise<void>;
}

/** Batches of [series, pointIndex] pairs in time order, 5,000 points each. */
function batches(): number[][][] {
  const out: number[][][] = [];
  let cur: number[][] = [];
  for (let j = 0; j < POINTS; j++) {
    for (let s = 0; s < SERIES; s++) {
      cur.push([s, j]);
      if (cur.length === BATCH) {
        out.push(cur);
        cur = [];
      }
    }
  }
  if (cur.length) out.push(cur);
  return out;
}
const tsOf = (j: number) => START + j * STEP;
const pointValue = (s: number, j: number) => (s % 100) + Math.sin(j / 10) * 10;

function groupBySeries(batch: number[][]): Map<number, number[]> {
  const m = new Map<number, number[]>();
  for (const [s, j] of batch) {
    let a = m.get(s!);
    if (!a) m.set(s!, (a = []));
    a.push(j!);
  }
  return m;
}

async function ok(res: Response, what: string): Promise<Response> {
  if (res.status >= 300) throw new Error(`${what}: HTTP ${res.status} ${await res.text()}`);
  return res;
}

/** The collector with its defaults (lossless) and any BENCH_COLLECTOR_ARGS, plus `args`. */
const outpostWith = (name: string, args: string[], note?: string): Target => ({
  name,
  note,
  async start() {
    const dir = tempDir("peer-outpost-");
    const { proc, url } = await startCollectorProcess([
      "--data-dir",
      dir.path,
      "--mqtt-port",
      "0",
      // The folder's size after the stop is that of the chunks, as VictoriaMetrics writes its
      // parts at stop (by default the points not yet sealed would stay in the ingest log).
      "--seal-on-stop",
      ...benchCollectorArgs(),
      ...args,
    ]);
    // Uncompressed answers, as these figures were taken before the collector compressed (gzip is timed in collector-http).
    const H = { "Content-Type": "application/json", "Hawkular-Tenant": "bench", "Accept-Encoding": "identity" };
    return {
      pid: proc.pid,
      async stop() {
        proc.kill("SIGTERM");
        await proc.exited;
        const bytes = folderBytes(dir.path);
        dir.remove();
        return bytes;
      },
      body: (batch) =>
        JSON.stringify(
          [...groupBySeries(batch)].map(([s, js]) => ({ id: `s${s}`, data: js.map((j) => ({ timestamp: tsOf(j), value: pointValue(s, j) })) })),
        ),
      async send(body) {
        await ok(await fetch(`${url}/hawkular/metrics/gauges/raw`, { method: "POST", headers: H, body }), "outpost write");
      },
      async count(s) {
        const r = await fetch(`${url}/hawkular/metrics/gauges/s${s}/raw?start=${START}&end=${END + 1}`, { headers: H });
        return r.status === 204 ? 0 : ((await r.json()) as unknown[]).length;
      },
      async query(s) {
        await ok(await fetch(`${url}/hawkular/metrics/gauges/s${s}/stats?start=${START}&end=${END}&buckets=60`, { headers: H }), "outpost stats");
      },
    };
  },
});
const outpost = outpostWith("Outpost", []);
const outpostRounded = outpostWith(
  "Outpost-12digits",
  ["--value-precision", "12"],
  "Outpost-12digits is the collector with --value-precision 12: values rounded to 12 significant digits at ingest, as VictoriaMetrics stores them (docs/storage.md, \"Value precision\"); Outpost is lossless",
);

const victoria: Target = {
  name: "VictoriaMetrics",
  note: "VictoriaMetrics buffers new rows for seconds before they are searchable; the run calls its /internal/force_flush after the last batch, its best case",
  async start() {
    const dir = tempDir("peer-vm-");
    const port = await freePort();
    const proc = Bun.spawn(
      ["victoria-metrics", `-storageDataPath=${dir.path}`, `-httpListenAddr=127.0.0.1:${port}`, "-retentionPeriod=1y", "-search.latencyOffset=0s", "-loggerLevel=ERROR"],
      { stdout: "ignore", stderr: "inherit" },
    );
    const url = `http://127.0.0.1:${port}`;
    await waitUp(`${url}/health`);
    const step = Math.ceil((END - START) / 60 / 1000);
    return {
      pid: proc.pid,
      async stop() {
        proc.kill("SIGTERM");
        await proc.exited;
        const bytes = folderBytes(dir.path);
        dir.remove();
        return bytes;
      },
      // JSON line import: one line per series with its values and timestamps.
      body: (batch) =>
        [...groupBySeries(batch)]
          .map(([s, js]) => JSON.stringify({ metric: { __name__: "bench", series: `s${s}` }, values: js.map((j) => pointValue(s, j)), timestamps: js.map(tsOf) }))
          .join("\n"),
      async send(body) {
        await ok(await fetch(`${url}/api/v1/import`, { method: "POST", body }), "vm import");
      },
      async settle() {
        await ok(await fetch(`${url}/internal/force_flush`), "vm force_flush");
      },
      async count(s) {
        const q = encodeURIComponent(`count_over_time(bench{series="s${s}"}[${Math.ceil((END - START) / 1000) + 10}s])`);
        const r = (await (await fetch(`${url}/api/v1/query?query=${q}&time=${(END + 1000) / 1000}&nocache=1`)).json()) as {
          data: { result: { value: [number, string] }[] };
        };
        return Number(r.data.result[0]?.value[1] ?? 0);
      },
      async query(s) {
        for (const fn of ["min_over_time", "avg_over_time", "max_over_time"]) {
          const q = encodeURIComponent(`${fn}(bench{series="s${s}"}[${step}s])`);
          await ok(await fetch(`${url}/api/v1/query_range?query=${q}&start=${START / 1000}&end=${END / 1000}&step=${step}s&nocache=1`), "vm query");
        }
      },
    };
  },
};

const influx: Target = {
  name: "InfluxDB 1.x",
  async start() {
    const dir = tempDir("peer-influx-");
    const port = await freePort();
    const rpc = await freePort();
    const conf = join(dir.path, "influxdb.conf");
    writeFileSync(
      conf,
      `reporting-disabled = true\nbind-address = "127.0.0.1:${rpc}"\n[meta]\n  dir = "${dir.path}/meta"\n[data]\n  dir = "${dir.path}/data"\n  wal-dir = "${dir.path}/wal"\n  query-log-enabled = false\n[http]\n  bind-address = "127.0.0.1:${port}"\n  log-enabled = false\n[monitor]\n  store-enabled = false\n`,
    );
    const proc = Bun.spawn(["influxd", "run", "-config", conf], { stdout: "ignore", stderr: "ignore" });
    const url = `http://127.0.0.1:${port}`;
    await waitUp(`${url}/ping`);
    await ok(await fetch(`${url}/query?q=${encodeURIComponent("CREATE DATABASE bench")}`, { method: "POST" }), "influx create db");
    const bucket = Math.ceil((END - START) / 60);
    return {
      pid: proc.pid,
      async stop() {
        proc.kill("SIGTERM");
        await proc.exited;
        const bytes = folderBytes(dir.path);
        dir.remove();
        return bytes;
      },
      body: (batch) => batch.map(([s, j]) => `bench,sid=s${s} value=${pointValue(s!, j!)} ${tsOf(j!)}`).join("\n"),
      async send(body) {
        await ok(await fetch(`${url}/write?db=bench&precision=ms`, { method: "POST", body }), "influx write");
      },
      async count(s) {
        const q = encodeURIComponent(`SELECT count(value) FROM bench WHERE sid='s${s}'`);
        const res = await fetch(`${url}/query?db=bench&q=${q}`);
        const r = (await res.json()) as { results?: { series?: { values: [string, number][] }[] }[]; error?: string };
        if (!r.results) throw new Error(`influx count: HTTP ${res.status} ${r.error ?? ""}`);
        return r.results[0]?.series?.[0]?.values[0]?.[1] ?? 0;
      },
      async query(s) {
        const q = encodeURIComponent(
          `SELECT min(value), mean(value), max(value) FROM bench WHERE sid='s${s}' AND time >= ${START}ms AND time < ${END}ms GROUP BY time(${bucket}ms)`,
        );
        await ok(await fetch(`${url}/query?db=bench&q=${q}`), "influx query");
      },
    };
  },
};

function installed(bin: string): boolean {
  return ["/usr/bin", "/usr/local/bin", "/usr/sbin"].some((d) => existsSync(join(d, bin)));
}

interface Result {
  name: string;
  ingest: number;
  queryable: number;
  p50: number;
  p99: number;
  rss: number;
  peakRss: number;
  /** CPU seconds the system's process used from the first batch until the data was queryable. */
  ingestCpu: number;
  /** The same split into user and kernel time, with the minor page faults meanwhile. */
  ingestCounters: ProcCounters;
  /** Load averages when the system's ingest ended (a shared machine's figures need them). */
  load: string;
  /** Data folder after a clean stop, per point written. */
  bytesPerPoint: number;
}

async function run(t: Target): Promise<Result> {
  const sys = await t.start();
  let stopped = false;
  try {
    // Bodies are built before the clock starts: the client shares the machine's cores with the
    // system measured, and encoding 10 M points took about a core's worth of the timed part.
    const all = batches().map((b) => sys.body(b));
    Bun.gc(true);
    let next = 0;
    const started = performance.now();
    const counters0 = procCounters(sys.pid);
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < all.length) await sys.send(all[next++]!);
      }),
    );
    const sent = (performance.now() - started) / 1000;
    await sys.settle?.();
    // Queryable: the last series reads back complete.
    const deadline = Date.now() + 60_000;
    while ((await sys.count(SERIES - 1)) < POINTS) {
      if (Date.now() > deadline) throw new Error(`${t.name}: data not queryable after 60 s`);
      await Bun.sleep(20);
    }
    const queryable = (performance.now() - started) / 1000;
    const ingestCounters = countersSince(counters0, procCounters(sys.pid));
    const load = loadAverage();
    const lat = await latency(() => sys.query(QUERY_SERIES), 200, 10);
    const rss = rssMB(sys.pid);
    const peakRss = peakRssMB(sys.pid);
    stopped = true;
    const bytes = await sys.stop();
    return { name: t.name, ingest: (SERIES * POINTS) / queryable, queryable: queryable - sent, p50: lat.p50, p99: lat.p99, rss, peakRss, ingestCpu: ingestCounters.user + ingestCounters.system, ingestCounters, load, bytesPerPoint: bytes / (SERIES * POINTS) };
  } finally {
    if (!stopped) await sys.stop();
  }
}

console.log(`workload: ${fmt(SERIES)} series × ${fmt(POINTS)} points over HTTP, batches of ${BATCH}, ${CONCURRENCY} in flight; query: 60-bucket min/avg/max over ${POINTS} points of one series`);
// SYSTEMS=Outpost (names, comma-separated) runs only those, e.g. to compare Outpost's settings.
const only = process.env.SYSTEMS?.split(",").map((n) => n.trim().toLowerCase());
const targets = [outpost, outpostRounded, ...(installed("victoria-metrics") ? [victoria] : []), ...(installed("influxd") ? [influx] : [])].filter(
  (t) => !only || only.includes(t.name.toLowerCase()),
);
if (!installed("victoria-metrics") && !installed("influxd")) console.log("(neither victoria-metrics nor influxd is installed: apt-get install victoria-metrics influxdb)");
const results: Result[] = [];
for (const t of targets) {
  try {
    results.push(await run(t));
  } catch (e) {
    console.log(`${t.name}: failed: ${(e as Error).message}`);
  }
}
for (const t of targets) if (t.note) console.log(`note: ${t.note}`);
const base = results.find((r) => r.name === "Outpost");
console.log(
  `\n${"system".padEnd(18)}${"ingest points/s".padStart(18)}${"lag to queryable".padStart(18)}${"query p50".padStart(12)}${"query p99".padStart(12)}${"RSS".padStart(10)}${"peak RSS".padStart(10)}${"disk B/pt".padStart(11)}${"ingest CPU s".padStart(14)}`,
);
for (const r of results) {
  console.log(
    `${r.name.padEnd(18)}${fmt(r.ingest).padStart(18)}${`${(r.queryable * 1000).toFixed(0)} ms`.padStart(18)}${`${r.p50.toFixed(2)} ms`.padStart(12)}${`${r.p99.toFixed(2)} ms`.padStart(12)}${`${fmt(r.rss)} MB`.padStart(10)}${`${fmt(r.peakRss)} MB`.padStart(10)}${r.bytesPerPoint.toFixed(2).padStart(11)}${r.ingestCpu.toFixed(2).padStart(14)}`,
  );
}
// The server's CPU split and minor page faults during ingest, per million points: these move far
// less with the machine's load than the rates do.
const M = (SERIES * POINTS) / 1e6;
console.log(`\n${"system".padEnd(18)}${"ingest user s".padStart(14)}${"system s".padStart(10)}${"CPU-s / M pts".padStart(15)}${"minor faults".padStart(14)}${"faults / M pts".padStart(16)}${"load avg at end".padStart(20)}`);
for (const r of results) {
  const c = r.ingestCounters;
  console.log(
    `${r.name.padEnd(18)}${c.user.toFixed(2).padStart(14)}${c.system.toFixed(2).padStart(10)}${((c.user + c.system) / M).toFixed(2).padStart(15)}${fmt(c.minflt).padStart(14)}${fmt(c.minflt / M).padStart(16)}${r.load.padStart(20)}`,
  );
}
if (base) {
  for (const r of results) {
    if (r === base) continue;
    console.log(
      `Outpost vs ${r.name}: ingest ×${(base.ingest / r.ingest).toFixed(2)}, query p50 ×${(r.p50 / base.p50).toFixed(2)} faster, CPU per point ×${(base.ingestCpu / r.ingestCpu).toFixed(2)}, minor faults ×${(base.ingestCounters.minflt / r.ingestCounters.minflt).toFixed(2)}, peak RSS ×${(base.peakRss / r.peakRss).toFixed(2)}`,
    );
  }
}
