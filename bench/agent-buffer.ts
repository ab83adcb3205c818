/**
 * The agent's buffer through an outage: 24 h of one host's default metrics at 10 s
 * (bench/_host-data.ts), appended sample by sample to a real PointBuffer on a real SQLite file
 * with the agent's compaction run at every tick as the agent runs it, on a simulated clock.
 * Prints the buffer file's size after a checkpoint per point buffered, what the points count
 * against --buffer-max-bytes, the days of outage the default 256 MiB holds, the CPU time of
 * compaction, and the MQTT bytes on the wire per point when the backlog is replayed.
 * Usage: bun bench/agent-buffer.ts
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { DEFAULT_COMPACTION } from "../agent/buffer/compaction.ts";
import { PointBuffer } from "../agent/buffer/point-buffer.ts";
import type { MetricWrite } from "../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../src/protocol/cbor.ts";
import { encodeData } from "../src/protocol/data-encode.ts";
import { openDatabase } from "../src/sqlite/open.ts";
import { aligned, extrapolate, recordedHost, type Series, simulatedHost } from "./_host-data.ts";
import { fmt, tempDir } from "./_lib.ts";

const STEP = 10_000;
const DEFAULT_MAX_BYTES = 256 * 1024 ** 2;
const DAY_SAMPLES = 8640;
const TOPIC = "svc/acme/host-1/data";

/** Percentages as the agent now computes them: to 0.01. */
const roundedPercents = (set: Series[]) => set.map((s) => (s.id.includes("percent") ? { ...s, values: s.values.map((v) => Math.round(v * 100) / 100) } : s));

/** Sample i of every series, as the host source hands it to the buffer. */
function sampleWrites(set: Series[], i: number): MetricWrite[] {
  const out: MetricWrite[] = [];
  for (const s of set) {
    if (i >= s.ts.length) continue;
    out.push({ type: s.id.includes("_total") ? "counter" : "gauge", id: `host-1:${s.id}`, points: [{ timestamp: s.ts[i]!, value: s.values[i]! }] });
  }
  return out;
}

/** Size of an MQTT 3.1.1 QoS 1 PUBLISH carrying `payload` on TOPIC. */
function publishBytes(payload: number): number {
  const remaining = 2 + TOPIC.length + 2 + payload;
  let lenBytes = 1;
  while (remaining >= 128 ** lenBytes) lenBytes++;
  return 1 + lenBytes + remaining;
}

interface Result {
  points: number;
  file: number;
  counted: number;
  rows: number;
  compactMs: number[];
  wire: number;
  batches: number;
  /** Points buffered per second of wall time, commits and compaction included. */
  rate: number;
}

async function run(name: string, set: Series[], compact: boolean, dir: string): Promise<Result> {
  const path = join(dir, `${name}.db`);
  const clock = { t: 0 };
  const enc = createEncoder();
  const dec = createDecoder();
  const buffer = new PointBuffer(
    openDatabase(path, { synchronous: "NORMAL" }),
    { tenant: "acme", feed: "host-1" },
    { maxBytes: 1e12, maxAgeMs: 1e12, chunkPoints: 5000 },
    enc,
    {},
    () => clock.t,
    0,
  );
  const compactMs: number[] = [];
  const start = set[0]!.ts[0]!;
  const began = performance.now();
  for (let i = 0; i < DAY_SAMPLES; i++) {
    clock.t = start + i * STEP + 3;
    await buffer.append(sampleWrites(set, i));
    // The agent compacts once a minute (agent/agent.ts).
    if (compact && i % 6 === 5) {
      const t0 = process.cpuUsage();
      buffer.compact(dec, DEFAULT_COMPACTION);
      const c = process.cpuUsage(t0);
      compactMs.push((c.user + c.system) / 1000);
    }
  }
  const { points, bytes: counted, chunks: rows } = buffer.depth;
  const rate = points / ((performance.now() - began) / 1000);
  // The backlog replayed as the forwarder sends it: spans of at most --batch-points points.
  let wire = 0;
  let batches = 0;
  for (let after = 0, seq = 1; ; seq++) {
    const span = buffer.read(after, Number.MAX_SAFE_INTEGER, 5000);
    if (!span) break;
    wire += publishBytes(encodeData(enc, { session: 1, seq, sentAt: clock.t, replay: true, chunks: span.bodies, formats: span.formats }).byteLength);
    batches++;
    after = span.hi;
  }
  buffer.close();
  const db = new Database(path);
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const file = (db.query("SELECT page_count * page_size AS s FROM pragma_page_count(), pragma_page_size()").get() as { s: number }).s;
  db.close();
  return { points, file, counted, rows, compactMs, wire, batches, rate };
}

const sim = simulatedHost(DAY_SAMPLES);
const rec24 = extrapolate(recordedHost(), DAY_SAMPLES);
const cases: [string, Series[], boolean][] = [
  ["host-sim, previous agent: wall-clock stamps, full percentages, no compaction", sim, false],
  ["host-sim, wall-clock stamps, full percentages, compacted", sim, true],
  ["host-sim, this agent: grid stamps, percentages to 0.01, compacted", roundedPercents(sim.map(aligned)), true],
  ["host-rec-24h, previous agent, no compaction", rec24, false],
  ["host-rec-24h, this agent: grid stamps, percentages to 0.01, compacted", roundedPercents(rec24.map(aligned)), true],
];

let peakRss = 0;
const rssTimer = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 200);
const dir = tempDir("agent-buffer-bench-");
console.log("One host, 24 h of 10 s default host metrics buffered during an outage (95 series, 820,800 points); compaction once a minute, as the agent runs it.\n");
console.log("| data | rows | file after checkpoint | file B/pt | counted B/pt | days in 256 MiB (counted) | days in 256 MiB of file | compaction CPU per pass, median / max | MQTT B/pt replayed | batches | points/s buffered |");
console.log("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
try {
  for (const [label, set, compact] of cases) {
    const r = await run(label.replace(/[^a-z0-9]+/gi, "-"), set, compact, dir.path);
    const perDayCounted = (r.counted / r.points) * set.length * DAY_SAMPLES;
    const perDayFile = r.file;
    const ms = [...r.compactMs].sort((a, b) => a - b);
    const cpu = ms.length ? `${fmt(ms[Math.floor(ms.length / 2)]!, 2)} / ${fmt(ms[ms.length - 1]!, 1)} ms` : "–";
    console.log(
      `| ${label} | ${fmt(r.rows)} | ${fmt(r.file / 2 ** 20, 2)} MiB | ${fmt(r.file / r.points, 2)} | ${fmt(r.counted / r.points, 2)} | ${fmt(DEFAULT_MAX_BYTES / perDayCounted, 1)} | ${fmt(DEFAULT_MAX_BYTES / perDayFile, 1)} | ${cpu} | ${fmt(r.wire / r.points, 2)} | ${fmt(r.batches)} | ${fmt(r.rate)} |`,
    );
  }
} finally {
  clearInterval(rssTimer);
  dir.remove();
}
console.log(`\npeak RSS of the benchmark process: ${fmt(peakRss / 2 ** 20, 0)} MiB (one sample of 95 points per commit, synchronous=NORMAL).`);
console.log("counted = what the rows count against --buffer-max-bytes (blob + 40 bytes per row). The default --buffer-max-age (24 h) drops points before the size limit does: raise it to ride out longer outages.");
