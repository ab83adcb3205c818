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
import { compressSync } from "snappy";
import { encodeWriteRequest, REMOTE_WRITE_HEADERS } from "../test/helpers/remote-write.ts";
import { countersSince, fmt, loadAverage, peakRssMB, procCounters } from "./_lib.ts";
import { type RestartableSystem, restartableOutpost, restartableVictoria, victoriaInstalled } from "./_remote-write-systems.ts";

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

/**
 * A series' label fields as a TimeSeries holds them, sorted by name as Prometheus sends them:
 * protobufjs' WriteRequest of that one series (test/helpers/remote-write.ts) without its entry's
 * tag and length. The requests themselves are put together from these bytes by hand: encoding
 * their millions of entries with protobufjs would take the client more of the two cores than
 * the server it measures.
 */
function seriesLabels(port: number, t: number, s: number): Uint8Array {
  const w = encodeWriteRequest([{ labels: { __name__: "bench_value", group: `g${s % 50}`, instance: `127.0.0.1:${port + t}`, job: "bench", series: `s${s}` }, samples: [] }]);
  let at = 1;
  while (w[at]! & 0x80) at++;
  return w.slice(at + 1);
}

/** Bytes of v as a protobuf varint. */
function varintLength(v: number): number {
  let n = 1;
  for (; v >= 0x80; n++) v = Math.floor(v / 0x80);
  return n;
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

/** Request k of a shard: the next PER_REQUEST samples of its stream (round by round, its series in order), and how many. */
function request(series: Uint8Array[], k: number): { body: Uint8Array; samples: number } | undefined {
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
  const end = Math.min(total, first + PER_REQUEST);
  for (let i = first; i < end; i++) {
    const round = Math.floor(i / series.length);
    const l = series[i % series.length]!;
    // A scrape's timestamp is a few ms off the second, as a real one is (JITTER_MS).
    const ts = start + round * 1000 + (JITTER_MS > 0 ? (round * 7919 + (i % series.length) * 13) % JITTER_MS : 0);
    // Sample: 0x09 double, 0x10 varint timestamp.
    const sampleLen = 9 + 1 + varintLength(ts);
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
  return { body: new Uint8Array(compressSync(Buffer.from(scratch.subarray(0, at)))), samples: end - first };
}


/** Every shard's requests from `from` (a request index) up to `to`; returns samples sent and the answers' total ms. */
async function send(sys: RestartableSystem, from: number, to: number): Promise<{ samples: number; requests: number; ms: number }> {
  let samples = 0;
  let requests = 0;
  let ms = 0;
  const t0 = performance.now();
  // A sender's requests paced so that all together send RATE samples/s.
  const every = RATE > 0 ? (PER_REQUEST * SHARDS * 1000) / RATE : 0;
  await Promise.all(
    shards.map(async (series, i) => {
      for (let k = from; k < to; k++) {
        const r = request(series, k);
        if (!r) return;
        const due = t0 + (k - from + i / SHARDS) * every;
        if (every > 0 && performance.now() < due) await Bun.sleep(due - performance.now());
        const t = performance.now();
        const res = await fetch(sys.writeUrl, { method: "POST", headers: REMOTE_WRITE_HEADERS, body: r.body });
        if (res.status !== 204) throw new Error(`${sys.name}: ${res.status} ${await res.text()}`);
        ms += performance.now() - t;
        requests++;
        samples += r.samples;
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
const makers = [
  ...(SYSTEMS.includes("Outpost") ? [() => restartableOutpost("rw-replay-outpost-")] : []),
  ...(SYSTEMS.includes("VictoriaMetrics") && victoriaInstalled() ? [() => restartableVictoria("rw-replay-vm-")] : []),
];
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
