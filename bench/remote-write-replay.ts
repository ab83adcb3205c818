#!/usr/bin/env bun
/**
 * Remote write's server cost alone: requests shaped as Prometheus 2.42 sends a backlog (500
 * samples a request, each sample its own TimeSeries with its full label set, a shard's series in
 * the order it scraped them), sent by SHARDS concurrent senders, each waiting for its answer
 * before the next request, as a shard does. The same requests go to Outpost and, when installed,
 * to VictoriaMetrics, in the same run. Unlike bench/remote-write-agent.ts, the sender's shard
 * count is fixed (Prometheus draws its own from what it could send around a restart, so there
 * the two systems may get different loads: docs/prometheus.md, twentieth part) and nothing but
 * the client shares the machine: a change's effect on the server's CPU per sample shows within
 * a minute.
 * Figures: samples/s taken, the server's CPU (user + system) and minor page faults per million
 * samples, its peak RSS, and the mean answer time.
 * With RESTART=1 each server is stopped after the first requests (which make the series) and
 * started again on the same data before the rest are sent, as when a backlog arrives.
 * Env: TARGETS (10) × SERIES (5000) series, ROUNDS (120: samples of each series), SHARDS (50),
 * RESTART (0), JITTER_MS (0: timestamps on the second; else up to that many ms off it), RATE
 * (0: as fast as answered; else samples/s all senders send at most), SYSTEMS
 * (Outpost,VictoriaMetrics), BENCH_COLLECTOR_ARGS (more options for Outpost).
 */
import { existsSync } from "node:fs";
import { compressSync } from "snappy";
import { benchCollectorArgs, countersSince, fmt, freePort, loadAverage, peakRssMB, procCounters, startCollectorProcess, tempDir } from "./_lib.ts";

const TARGETS = Number(process.env.TARGETS ?? 10);
const SERIES = Number(process.env.SERIES ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 120);
const SHARDS = Number(process.env.SHARDS ?? 50);
const RESTART = process.env.RESTART === "1";
/** Samples/s all senders together send at most (0: as fast as answered). */
const RATE = Number(process.env.RATE ?? 0);
const SYSTEMS = (process.env.SYSTEMS ?? "Outpost,VictoriaMetrics").split(",").map((s) => s.trim());
const PER_REQUEST = 500;
const JITTER_MS = Number(process.env.JITTER_MS ?? 0);

const enc = new TextEncoder();

function varint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** The protobuf bytes of a Label. */
function label(name: string, value: string): number[] {
  const n = enc.encode(name);
  const v = enc.encode(value);
  const out: number[] = [0x0a];
  varint(out, n.length);
  out.push(...n, 0x12);
  varint(out, v.length);
  out.push(...v);
  return out;
}

/** A series' labels as a TimeSeries holds them (field 1, repeated), sorted by name as Prometheus sends them. */
function seriesLabels(port: number, t: number, s: number): Uint8Array {
  const labels: [string, string][] = [
    ["__name__", "bench_value"],
    ["group", `g${s % 50}`],
    ["instance", `127.0.0.1:${port + t}`],
    ["job", "bench"],
    ["series", `s${s}`],
  ];
  const out: number[] = [];
  for (const [n, v] of labels) {
    const l = label(n, v);
    out.push(0x0a);
    varint(out, l.length);
    out.push(...l);
  }
  return Uint8Array.from(out);
}

/** FNV-1a over the label bytes: the shard of a series (Prometheus shards by the labels' hash). */
function shardOf(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h % SHARDS;
}

const shards: Uint8Array[][] = Array.from({ length: SHARDS }, () => []);
for (let t = 0; t < TARGETS; t++) {
  for (let s = 0; s < SERIES; s++) {
    const l = seriesLabels(9100, t, s);
    shards[shardOf(l)]!.push(l);
  }
}
const start = Date.now() - (ROUNDS + 60) * 1000;
const scratch = new Uint8Array(PER_REQUEST * 160);
const view = new DataView(scratch.buffer);

/** Request k of a shard: the next PER_REQUEST samples of its stream (round by round, its series in order). */
function request(series: Uint8Array[], k: number): Uint8Array | undefined {
  const first = k * PER_REQUEST;
  const total = series.length * ROUNDS;
  if (first >= total) return undefined;
  let at = 0;
  const put = (v: number) => {
    while (v >= 0x80) {
      scratch[at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    scratch[at++] = v;
  };
  for (let i = first; i < Math.min(total, first + PER_REQUEST); i++) {
    const round = Math.floor(i / series.length);
    const l = series[i % series.length]!;
    // A scrape's timestamp is a few ms off the second, as a real one is (JITTER_MS).
    const ts = start + round * 1000 + (JITTER_MS > 0 ? (round * 7919 + (i % series.length) * 13) % JITTER_MS : 0);
    // Sample: 0x09 double, 0x10 varint timestamp.
    const tsLen = Math.ceil(Math.log2(ts + 1) / 7);
    const sampleLen = 9 + 1 + tsLen;
    scratch[at++] = 0x0a;
    put(l.length + 2 + sampleLen);
    scratch.set(l, at);
    at += l.length;
    scratch[at++] = 0x12;
    put(sampleLen);
    scratch[at++] = 0x09;
    view.setFloat64(at, ((i % series.length) * 7 + round * 13) % 1000, true);
    at += 8;
    scratch[at++] = 0x10;
    put(ts);
  }
  return new Uint8Array(compressSync(Buffer.from(scratch.subarray(0, at))));
}

interface System {
  name: string;
  writeUrl: string;
  /** Starts the server on its data (kept from a start before); its pid. */
  start(): Promise<number>;
  stop(): Promise<void>;
  remove(): void;
}

type Proc = { pid: number; kill(s?: NodeJS.Signals): void; exited: Promise<number> };

async function outpost(): Promise<System> {
  const dir = tempDir("rw-replay-outpost-");
  const port = await freePort();
  let proc: Proc | undefined;
  return {
    name: "Outpost",
    writeUrl: `http://127.0.0.1:${port}/prometheus/bench/api/v1/write`,
    async start() {
      proc = (await startCollectorProcess(["--data-dir", dir.path, "--mqtt-port", "0", ...benchCollectorArgs()], port)).proc;
      return proc.pid;
    },
    async stop() {
      proc?.kill("SIGTERM");
      await proc?.exited;
    },
    remove: () => dir.remove(),
  };
}

async function victoria(): Promise<System> {
  const dir = tempDir("rw-replay-vm-");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let proc: Proc | undefined;
  return {
    name: "VictoriaMetrics",
    writeUrl: `${url}/api/v1/write`,
    async start() {
      proc = Bun.spawn(["victoria-metrics", `-storageDataPath=${dir.path}`, `-httpListenAddr=127.0.0.1:${port}`, "-retentionPeriod=1y", "-loggerLevel=ERROR"], { stdout: "ignore", stderr: "inherit" });
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          if ((await fetch(`${url}/health`)).status === 200) break;
        } catch {}
        if (Date.now() > deadline) throw new Error("victoria-metrics did not start");
        await Bun.sleep(50);
      }
      return proc.pid;
    },
    async stop() {
      proc?.kill("SIGTERM");
      await proc?.exited;
    },
    remove: () => dir.remove(),
  };
}

const headers = { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0" };

/** Every shard's requests from `from` (a request index) up to `to`; returns samples sent and the answers' total ms. */
async function send(sys: System, from: number, to: number): Promise<{ samples: number; requests: number; ms: number }> {
  let samples = 0;
  let requests = 0;
  let ms = 0;
  const t0 = performance.now();
  // A sender's requests paced so that all together send RATE samples/s.
  const every = RATE > 0 ? (PER_REQUEST * SHARDS * 1000) / RATE : 0;
  await Promise.all(
    shards.map(async (series, i) => {
      for (let k = from; k < to; k++) {
        const body = request(series, k);
        if (!body) return;
        const due = t0 + (k - from + i / SHARDS) * every;
        if (every > 0 && performance.now() < due) await Bun.sleep(due - performance.now());
        const t = performance.now();
        const res = await fetch(sys.writeUrl, { method: "POST", headers, body });
        if (res.status !== 204) throw new Error(`${sys.name}: ${res.status} ${await res.text()}`);
        ms += performance.now() - t;
        requests++;
        samples += Math.min(PER_REQUEST, series.length * ROUNDS - k * PER_REQUEST);
      }
    }),
  );
  return { samples, requests, ms };
}

const perShard = Math.ceil((Math.max(...shards.map((s) => s.length)) * ROUNDS) / PER_REQUEST);
// The first rounds make the series (not measured): a backlog's series are known to the server.
const warm = Math.ceil((Math.max(...shards.map((s) => s.length)) * 2) / PER_REQUEST);
console.log(
  `remote write replayed: ${fmt(TARGETS * SERIES)} series × ${ROUNDS} samples, ${PER_REQUEST} samples a request (one TimeSeries each), ${SHARDS} senders each awaiting its answer; measured after the first ${warm} requests of each sender${RESTART ? ", the server restarted after them" : ""}`,
);
const makers = [...(SYSTEMS.includes("Outpost") ? [outpost] : []), ...(SYSTEMS.includes("VictoriaMetrics") && existsSync("/usr/bin/victoria-metrics") ? [victoria] : [])];
const head = ["system", "samples", "samples/s", "CPU user + sys s", "CPU-s / M", "faults / M", "request ms", "peak RSS", "load avg"];
const widths = [17, 12, 12, 18, 11, 12, 12, 10, 16];
const rows: string[][] = [];
for (const make of makers) {
  const sys = await make();
  try {
    let pid = await sys.start();
    await send(sys, 0, warm);
    if (RESTART) {
      await sys.stop();
      pid = await sys.start();
    }
    const c0 = procCounters(pid);
    const t0 = performance.now();
    const r = await send(sys, warm, perShard);
    const seconds = (performance.now() - t0) / 1000;
    const c = countersSince(c0, procCounters(pid));
    const m = r.samples / 1e6;
    rows.push([
      sys.name,
      fmt(r.samples),
      `${fmt(r.samples / seconds)}/s`,
      `${c.user.toFixed(2)} + ${c.system.toFixed(2)}`,
      ((c.user + c.system) / m).toFixed(2),
      fmt(c.minflt / m),
      (r.ms / r.requests).toFixed(1),
      `${fmt(peakRssMB(pid))} MB`,
      loadAverage(),
    ]);
  } finally {
    await sys.stop();
    sys.remove();
  }
}
console.log(`\n${head.map((h, i) => h.padEnd(widths[i]!)).join("")}`);
for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i]!)).join(""));
