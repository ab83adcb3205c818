#!/usr/bin/env bun
/**
 * The point codec (src/codec) on the data it is made for: bytes per point by data set, chunk
 * size and value scheme; encode and decode speed; the decode time of a week of one series;
 * what the blocks take once stored in SQLite the way the agent buffer and the collector store
 * rows. Data sets: bench/_host-data.ts. Speeds depend on what else runs on the machine (its
 * load average is printed first).
 * Usage: bun bench/codec.ts
 */
import { Database } from "bun:sqlite";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decodePoints, decodePointsInto, type EncodeOptions, encodePoints, inspectBlock } from "../src/codec/index.ts";
import { createEncoder } from "../src/protocol/cbor.ts";
import { aligned, extrapolate, peersSeries, randomSeries, recordedHost, type Series, simulatedHost } from "./_host-data.ts";
import { fmt, tempDir } from "./_lib.ts";

type Scheme = NonNullable<EncodeOptions["values"]>;

function chunks(s: Series, size: number): Series[] {
  const out: Series[] = [];
  for (let i = 0; i < s.ts.length; i += size) out.push({ id: s.id, ts: s.ts.subarray(i, i + size), values: s.values.subarray(i, i + size) });
  return out;
}

const encode = (c: Series, values: Scheme = "auto") => encodePoints({ ts: c.ts, nums: c.values }, { values });
const points = (set: Series[]) => set.reduce((n, s) => n + s.ts.length, 0);

/** Bytes per point of a data set cut into chunks of `size`, optionally through a general-purpose compressor. */
function bytesPerPoint(set: Series[], size: number, values: Scheme = "auto", after?: (b: Uint8Array<ArrayBuffer>) => Uint8Array): number {
  let bytes = 0;
  for (const s of set) for (const c of chunks(s, size)) bytes += (after ?? ((b) => b))(encode(c, values)).length;
  return bytes / points(set);
}

/**
 * Best of `runs` timings of f, in ms of CPU time of this process (user + system): on a shared
 * machine, time waiting for a core would otherwise count as the codec's.
 */
function best(runs: number, f: () => void): number {
  let t = Number.POSITIVE_INFINITY;
  for (let r = 0; r < runs; r++) {
    const s = process.cpuUsage();
    f();
    const d = process.cpuUsage(s);
    t = Math.min(t, (d.user + d.system) / 1000);
  }
  return t;
}

const percentSeries = (s: Series) => s.id.includes("percent");
const roundedPercents = (set: Series[]) =>
  set.map((s) => (percentSeries(s) ? { ...s, values: s.values.map((v) => Math.round(v * 100) / 100) } : s));
/** 12 significant digits: what VictoriaMetrics keeps of a float (reference only: the codec is lossless). */
const twelveDigits = (set: Series[]) => set.map((s) => ({ ...s, values: s.values.map((v) => Number(v.toPrecision(12))) }));

const recorded = recordedHost();
const recordedSamples = recorded[0]?.ts.length ?? 0;
const sim = simulatedHost();
const rec24 = extrapolate(recorded, 8640);
const peers = Array.from({ length: 100 }, (_, s) => peersSeries(s));

const sets: [string, Series[], string][] = [
  ["host-sim", sim, "simulated day, 95 series, agent clock (timer a few ms late)"],
  ["host-sim-grid", sim.map(aligned), "same, stamped on the 10 s grid"],
  ["host-sim-grid-pct2", roundedPercents(sim.map(aligned)), "same, percentages rounded to 0.01"],
  ["host-rec", recorded, `recorded here: ${recordedSamples} samples of 95 series, as recorded`],
  ["host-rec-24h", rec24, "the recording stretched to a day"],
  ["host-rec-24h-grid", rec24.map(aligned), "same, stamped on the 10 s grid"],
  ["peers", peers, "bench/peers.ts values, 1,000 points per series"],
  ["peers-12-digits", twelveDigits(peers), "same rounded to 12 digits (reference, lossy)"],
  ["random-uniform", [randomSeries("uniform", 8640, 7)], "uniform doubles in [0, 1)"],
  ["random-bits", [randomSeries("bits", 8640, 7)], "random float64 bits (worst case)"],
];

const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(`Point codec (src/codec). Load average at start: ${load} (speeds are from a shared machine when it is above 0).\n`);

console.log("### Bytes per point by chunk size (scheme auto; headers and checksum included)\n");
const sizes = [60, 120, 360, 1024];
console.log(`| data set | ${sizes.map((s) => `${s} pts`).join(" | ")} | what |`);
console.log(`|---|${sizes.map(() => "--:").join("|")}|---|`);
for (const [name, set, what] of sets) {
  console.log(`| ${name} | ${sizes.map((s) => fmt(bytesPerPoint(set, s), 3)).join(" | ")} | ${what} |`);
}

console.log("\n### Value schemes and a general-purpose pass, chunks of 360 / 1,024 points\n");
const zstd = (b: Uint8Array<ArrayBuffer>) => Bun.zstdCompressSync(b, { level: 3 });
const deflate = (b: Uint8Array<ArrayBuffer>) => Bun.deflateSync(b);
const columns: [string, (set: Series[], size: number) => number][] = [
  ["auto", (set, size) => bytesPerPoint(set, size)],
  ["decimal¹", (set, size) => bytesPerPoint(set, size, "decimal")],
  ["xor", (set, size) => bytesPerPoint(set, size, "xor")],
  ["raw", (set, size) => bytesPerPoint(set, size, "raw")],
  ["auto+zstd", (set, size) => bytesPerPoint(set, size, "auto", zstd)],
  ["auto+deflate", (set, size) => bytesPerPoint(set, size, "auto", deflate)],
];
console.log(`| data set | ${columns.map(([c]) => c).join(" | ")} |`);
console.log(`|---|${columns.map(() => "--:").join("|")}|`);
for (const [name, set] of sets) {
  console.log(`| ${name} | ${columns.map(([, f]) => `${fmt(f(set, 360), 2)} / ${fmt(f(set, 1024), 2)}`).join(" | ")} |`);
}
console.log("\n¹ decimal where the values allow it, else xor (as auto does); auto differs only where raw is smaller.");

console.log("\n### Where the bytes go (host-sim, 1,024-point chunks)\n");
{
  const byScheme = new Map<string, { bytes: number; points: number; series: number }>();
  for (const s of sim) {
    let bytes = 0;
    let scheme = "";
    for (const c of chunks(s, 1024)) {
      const b = encode(c);
      bytes += b.length;
      scheme = inspectBlock(b).valueScheme;
    }
    const key = scheme === "xor" ? "xor (full-precision ratios: cpu, memory, filesystem percentages)" : scheme;
    const e = byScheme.get(key) ?? { bytes: 0, points: 0, series: 0 };
    e.bytes += bytes;
    e.points += s.ts.length;
    e.series++;
    byScheme.set(key, e);
  }
  const total = [...byScheme.values()].reduce((n, e) => n + e.bytes, 0);
  for (const [k, e] of byScheme) {
    console.log(`- ${k}: ${e.series} series, ${fmt(e.bytes / e.points, 2)} B/pt, ${fmt((100 * e.bytes) / total, 0)} % of the bytes`);
  }
  const tsOnly = (set: Series[]) => bytesPerPoint(set.map((s) => ({ ...s, values: new Float64Array(s.ts.length) })), 1024);
  console.log(`- timestamps alone (block with a constant value): agent clock ${fmt(tsOnly(sim), 3)} B/pt, 10 s grid ${fmt(tsOnly(sim.map(aligned)), 3)} B/pt`);
}

console.log("\n### Decimal or xor: blocks where xor would have been smaller than the decimal auto keeps\n");
console.log("| data set | chunk | decimal blocks | xor smaller in | bytes xor would save |");
console.log("|---|--:|--:|--:|--:|");
for (const [name, set] of sets.filter(([n]) => n === "host-sim" || n === "host-rec-24h")) {
  for (const size of [60, 360, 1024]) {
    let blocks = 0;
    let smaller = 0;
    let saved = 0;
    let total = 0;
    for (const c of set.flatMap((s) => chunks(s, size))) {
      const d = encode(c, "decimal");
      if (inspectBlock(d).valueScheme !== "decimal") continue;
      blocks++;
      total += d.length;
      const x = encode(c, "xor").length;
      if (x < d.length) {
        smaller++;
        saved += d.length - x;
      }
    }
    console.log(`| ${name} | ${size} | ${blocks} | ${smaller} | ${fmt((100 * saved) / total, 2)} % |`);
  }
}

console.log("\n### Speed (scheme auto, 1,024-point chunks; CPU time, best of 5 runs)\n");
console.log("| data set | encode M points/s | decode M points/s | decode into one array, M points/s |");
console.log("|---|--:|--:|--:|");
for (const [name, set] of sets) {
  if (name.endsWith("-12-digits") || name === "host-rec") continue;
  const cs = set.flatMap((s) => chunks(s, 1024));
  const n = points(set);
  let blocks: Uint8Array[] = [];
  const enc = best(5, () => {
    blocks = cs.map((c) => encode(c));
  });
  const dec = best(5, () => {
    for (const b of blocks) decodePoints(b);
  });
  const ts = new Float64Array(n);
  const nums = new Float64Array(n);
  const into = best(5, () => {
    let at = 0;
    for (const b of blocks) at += decodePointsInto(b, ts, nums, at).points;
  });
  console.log(`| ${name} | ${fmt(n / enc / 1000, 1)} | ${fmt(n / dec / 1000, 1)} | ${fmt(n / into / 1000, 1)} |`);
}
{
  const blocks = sim.flatMap((s) => chunks(s, 1024)).map((c) => encode(c));
  const z = blocks.map(zstd);
  const d = blocks.map(deflate);
  const per = <B extends Uint8Array>(f: (b: B) => unknown, on: B[]) =>
    fmt((best(5, () => {
      for (const b of on) f(b);
    }) * 1000) / on.length, 1);
  const codec = per((b) => decodePoints(b), blocks);
  console.log(
    `\nA general-purpose pass over host-sim blocks would add, per block of 1,024 points (which the codec decodes in ${codec} µs): zstd ${per(zstd, blocks)} µs to encode and ${per((b) => Bun.zstdDecompressSync(b), z)} µs to decode; deflate ${per(deflate, blocks)} µs and ${per((b) => Bun.inflateSync(b), d)} µs.`,
  );
}

console.log("\n### A week of one series (60,480 points at 10 s), decoded (CPU time, best of 20 runs)\n");
console.log("| series | scheme | B/pt | 60 chunks of 1,008 | same, into one array | one block |");
console.log("|---|---|--:|--:|--:|--:|");
{
  const week = simulatedHost(60_480, 3);
  const pick = ["cpu_time_ms_total:total:user", "memory_free_bytes", "load1", "cpu_usage_percent:total", "swap_used_bytes"];
  for (const id of pick) {
    const s = week.find((x) => x.id === id)!;
    const cs = chunks(s, 1008).map((c) => encode(c));
    const one = encode(s);
    const bytes = cs.reduce((n, b) => n + b.length, 0);
    const t60 = best(20, () => {
      for (const b of cs) decodePoints(b);
    });
    const ts = new Float64Array(s.ts.length);
    const nums = new Float64Array(s.ts.length);
    const tInto = best(20, () => {
      let at = 0;
      for (const b of cs) at += decodePointsInto(b, ts, nums, at).points;
    });
    const t1 = best(20, () => decodePoints(one));
    console.log(`| ${id} | ${inspectBlock(one).valueScheme} | ${fmt(bytes / s.ts.length, 2)} | ${fmt(t60, 3)} ms | ${fmt(tInto, 3)} ms | ${fmt(t1, 3)} ms |`);
  }
}

console.log("\n### Stored in SQLite (file size after a checkpoint, divided by points)\n");
{
  const dir = tempDir("codec-bench-");
  const cbor = createEncoder();
  let file = 0;
  /** Inserts rows into a fresh database and returns its size in bytes after a checkpoint. */
  const stored = (name: string, ddl: string, insert: string, rows: unknown[][], pageSize = 4096): { file: number; payload: number } => {
    const db = new Database(join(dir.path, `${name}-${file++}.db`), { create: true });
    db.exec(`PRAGMA page_size = ${pageSize}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(ddl);
    const st = db.prepare(insert);
    db.transaction(() => {
      for (const r of rows) st.run(...(r as never[]));
    })();
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const size = (db.query("SELECT page_count * page_size AS s FROM pragma_page_count(), pragma_page_size()").get() as { s: number }).s;
    db.close();
    let payload = 0;
    for (const r of rows) for (const c of r) if (c instanceof Uint8Array) payload += c.length;
    return { file: size, payload };
  };
  const agentDdl = "CREATE TABLE chunks (id INTEGER PRIMARY KEY AUTOINCREMENT, enq INTEGER NOT NULL, fmt INTEGER NOT NULL, n INTEGER NOT NULL, bytes INTEGER NOT NULL, body BLOB NOT NULL)";
  const agentInsert = "INSERT INTO chunks (enq, fmt, n, bytes, body) VALUES (?, 1, ?, ?, ?)";
  const row = (body: Uint8Array, n: number) => [0, n, body.length, body];
  const idOf = (s: Series) => `host-1:${s.id}`;
  const agentRows = (set: Series[], size: number, perRow: "series" | "all") => {
    const rows: unknown[][] = [];
    const hours = Math.ceil(set[0]!.ts.length / size);
    for (let h = 0; h < hours; h++) {
      const parts = set.map((s) => [idOf(s), encode({ id: s.id, ts: s.ts.subarray(h * size, (h + 1) * size), values: s.values.subarray(h * size, (h + 1) * size) })] as const);
      const n = set.reduce((k, s) => k + Math.max(0, Math.min(size, s.ts.length - h * size)), 0);
      if (perRow === "all") rows.push(row(cbor.encode(parts), n));
      else for (const [id, b] of parts) rows.push(row(cbor.encode([id, b]), inspectBlock(b).points));
    }
    return rows;
  };
  // Today: one CBOR chunk of metric writes per 10 s sample.
  const today = (set: Series[]) => {
    const rows: unknown[][] = [];
    for (let i = 0; i < set[0]!.ts.length; i++) {
      const writes = set.filter((s) => i < s.ts.length).map((s) => ({ type: s.id.includes("_total") ? "counter" : "gauge", id: idOf(s), points: [{ timestamp: s.ts[i]!, value: s.values[i]! }] }));
      rows.push(row(cbor.encode(writes), writes.length));
    }
    return rows;
  };
  const n = points(sim);
  const mb = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MiB`;
  const line = (label: string, { file, payload }: { file: number; payload: number }, pts = n) =>
    console.log(`| ${label} | ${mb(file)} | ${fmt(file / pts, 2)} | ${fmt(payload / pts, 2)} | ${fmt((64 * 2 ** 20) / file, 1)} |`);
  console.log("| agent buffer, one host day (host-sim) | file | B/pt | of which blobs | days in 64 MiB |");
  console.log("|---|--:|--:|--:|--:|");
  line("today: a CBOR chunk per 10 s sample", stored("today", agentDdl, agentInsert, today(sim)));
  for (const [label, set] of [
    ["agent clock", sim],
    ["10 s grid", sim.map(aligned)],
    ["10 s grid, percentages to 0.01", roundedPercents(sim.map(aligned))],
  ] as const) {
    line(`codec, ${label}: a row per series-hour (360 points)`, stored("series", agentDdl, agentInsert, agentRows(set, 360, "series")));
    line(`codec, ${label}: a row per hour (95 series)`, stored("hour", agentDdl, agentInsert, agentRows(set, 360, "all")));
  }
  const collectorDdl =
    "CREATE TABLE chunks (cid INTEGER PRIMARY KEY AUTOINCREMENT, sid INTEGER NOT NULL, start_ts INTEGER NOT NULL, end_ts INTEGER NOT NULL, n INTEGER NOT NULL, body BLOB NOT NULL); CREATE INDEX chunks_by_series ON chunks (sid, start_ts, end_ts)";
  const collectorInsert = "INSERT INTO chunks (sid, start_ts, end_ts, n, body) VALUES (?, ?, ?, ?, ?)";
  const collectorRows = (set: Series[], size: number) =>
    set.flatMap((s, sid) => chunks(s, size).map((c) => [sid, c.ts[0]!, c.ts[c.ts.length - 1]!, c.ts.length, encode(c)]));
  console.log("\n| collector chunks (one row per series and chunk, indexed as today) | file | B/pt | of which blobs |");
  console.log("|---|--:|--:|--:|");
  const cline = (label: string, set: Series[], size: number, pageSize?: number) => {
    const { file, payload } = stored("collector", collectorDdl, collectorInsert, collectorRows(set, size), pageSize);
    console.log(`| ${label} | ${mb(file)} | ${fmt(file / points(set), 2)} | ${fmt(payload / points(set), 2)} |`);
  };
  cline("host-sim, 1,024-point chunks", sim, 1024);
  cline("host-sim-grid, 1,024-point chunks", sim.map(aligned), 1024);
  cline("host-rec-24h, 1,024-point chunks", rec24, 1024);
  cline("host-rec-24h-grid, 1,024-point chunks", rec24.map(aligned), 1024);
  const peers1000 = Array.from({ length: 1000 }, (_, s) => peersSeries(s));
  cline("peers (1,000 series, chunks of 1,000)", peers1000, 1000);
  // Rows of 1-8 KB leave part of each 4 KiB page (or of the last overflow page) empty.
  for (const pageSize of [1024, 2048, 8192, 16384]) {
    cline(`host-rec-24h, 1,024-point chunks, page_size ${pageSize}`, rec24, 1024, pageSize);
    cline(`peers, page_size ${pageSize}`, peers1000, 1000, pageSize);
  }
  dir.remove();
}
