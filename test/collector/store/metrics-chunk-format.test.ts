/**
 * Sealed chunks as point-codec blocks (metrics.db schema version 3): a database of the previous
 * layout (raw float64 chunks) is upgraded and every point reads back, old and new chunks
 * together; chunks are sealed at 1,024–2,047 points and never across a UTC day.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { encodeChunk } from "../../../collector/store/metrics/chunk-codec.ts";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { METRICS_DB } from "../../../collector/store/metrics/sqlite/schema.ts";
import { decodePoints, inspectBlock } from "../../../src/codec/index.ts";
import { AVAILABILITY_CODE, DAY_MS, type Tags } from "../../../src/metrics/model.ts";
import { migrate, schemaVersion } from "../../../src/sqlite/migrations.ts";

const dirs: string[] = [];
const stores: SqliteMetricsStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) if (s.ready()) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "outpost-chunks-"));
  dirs.push(d);
  return d;
}
async function open(d: string) {
  const s = await openSqliteMetricsStore({ dataDir: d, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
  stores.push(s);
  return s;
}
const all = { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" as const };
const DAY0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 3 * DAY_MS;

interface OldSeries {
  type: "gauge" | "counter" | "availability" | "string";
  id: string;
  ts: number[];
  values: (number | string)[];
  tags?: (Tags | undefined)[];
}

/** Values that must survive bit for bit: NaN, ±Infinity, −0, subnormals, full-precision floats. */
const special = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 5e-324, Math.PI, 1e300];
const OLD: OldSeries[] = [
  // 3,000 points at 60 s across three UTC days: one chunk per day, as the old flush made them.
  { type: "gauge", id: "g", ts: Array.from({ length: 3000 }, (_, i) => DAY0 + i * 60_000), values: Array.from({ length: 3000 }, (_, i) => special[i % 7]! + (i % 7 === 6 ? i : 0)) },
  { type: "counter", id: "c", ts: [DAY0, DAY0 + 1000, DAY0 + 2000], values: [1, 2, 4] },
  { type: "availability", id: "a", ts: [DAY0, DAY0 + 1000, DAY0 + 2000], values: ["up", "down", "unknown"] },
  { type: "string", id: "s", ts: [DAY0, DAY0 + 1000], values: ["v1", "\u00e9t\u00e9"], tags: [{ k: "x" }, undefined] },
];

/**
 * metrics.db as the previous version (schema 2) wrote it: the real migrations up to version 2,
 * then chunks of raw float64 columns (format 0) one per series and UTC day.
 */
function writeVersion2Database(file: string): void {
  const db = new Database(file, { create: true });
  migrate(db, { name: "metrics.db", migrations: METRICS_DB.migrations.slice(0, 2) });
  db.query("INSERT INTO tenants (id, retentions, created) VALUES ('t', NULL, 0)").run();
  const insertChunk = db.query("INSERT INTO chunks (sid, start_ts, end_ts, n, ts, vals, tags, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  OLD.forEach((o, k) => {
    const sid = k + 1;
    db.query("INSERT INTO series (sid, tenant, type, metric, min_ts, max_ts, flushed_seq) VALUES (?, 't', ?, ?, ?, ?, 0)").run(sid, o.type, o.id, o.ts[0]!, o.ts.at(-1)!);
    for (let day = 0; day < 3; day++) {
      const idx = o.ts.map((t, i) => [t, i] as const).filter(([t]) => Math.floor(t / DAY_MS) === Math.floor(DAY0 / DAY_MS) + day);
      if (idx.length === 0) continue;
      const ts = Float64Array.from(idx.map(([t]) => t));
      const pick = idx.map(([, i]) => o.values[i]!);
      const run =
        o.type === "string"
          ? { ts, strs: pick as string[], tags: o.tags ? idx.map(([, i]) => o.tags![i]) : undefined }
          : { ts, nums: Float64Array.from(pick.map((v) => (o.type === "availability" ? AVAILABILITY_CODE[v as "up"] : (v as number)))) };
      const b = encodeChunk(run);
      insertChunk.run(sid, ts[0]!, ts.at(-1)!, ts.length, b.ts, b.vals, b.tags, Date.now() + 365 * DAY_MS);
    }
  });
  db.close();
}

function formats(d: string): Record<number, number> {
  const db = new Database(join(d, "metrics.db"), { readonly: true });
  try {
    const rows = db.query("SELECT format, count(*) AS n FROM chunks GROUP BY format").all() as { format: number; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.format, r.n]));
  } finally {
    db.close();
  }
}

describe("compressed chunks (metrics.db schema 3)", () => {
  it("upgrades a database of the previous layout: every old point reads back, bit for bit, beside new chunks", async () => {
    const d = tempDir();
    writeVersion2Database(join(d, "metrics.db"));
    const s = await open(d);
    const db = new Database(join(d, "metrics.db"), { readonly: true });
    expect(schemaVersion(db)).toBe(5);
    db.close();
    expect(formats(d)).toEqual({ 0: 6 });

    const g = await s.readSeries("t", "gauge", "g", 0, Number.MAX_SAFE_INTEGER);
    expect(Array.from(g!.ts)).toEqual(OLD[0]!.ts);
    // Object.is tells −0 from 0 and NaN from a number: every value is the one written.
    for (let i = 0; i < 3000; i++) expect(Object.is(g!.values[i], OLD[0]!.values[i]), `point ${i}`).toBe(true);
    expect((await s.readRaw("t", "counter", "c", all)).values).toEqual([1, 2, 4]);
    expect((await s.readRaw("t", "availability", "a", all)).values).toEqual(["up", "down", "unknown"]);
    expect(await s.readRaw("t", "string", "s", all)).toEqual({ ts: OLD[3]!.ts, values: OLD[3]!.values, tags: [{ k: "x" }, undefined] });

    // New points: later ones, and a rewrite of an old timestamp (the later write wins across formats).
    const later = Array.from({ length: 1500 }, (_, i) => ({ timestamp: DAY0 + 3000 * 60_000 + i * 10_000, value: i / 100 }));
    await s.write("t", [{ type: "gauge", id: "g", points: [...later, { timestamp: DAY0, value: 42 }] }]);
    s.flushDue(true);
    expect(formats(d)[0]).toBe(6);
    expect(formats(d)[1]).toBeGreaterThan(0);
    const readsBack = async (st: SqliteMetricsStore) => {
      const r = await st.readSeries("t", "gauge", "g", 0, Number.MAX_SAFE_INTEGER);
      expect(r!.ts.length).toBe(4500);
      expect(r!.values[0]).toBe(42);
      for (let i = 1; i < 3000; i++) expect(Object.is(r!.values[i], OLD[0]!.values[i]), `point ${i}`).toBe(true);
      expect(Array.from(r!.values.subarray(3000))).toEqual(later.map((p) => p.value));
      // A range inside the old chunks only, and one across both formats.
      // (Raw reads leave NaN out: a stored NaN is a staleness marker, docs/prometheus.md.)
      const mid = await st.readRaw("t", "gauge", "g", { start: DAY0 + 1000 * 60_000, end: DAY0 + 1010 * 60_000, order: "desc" });
      expect(mid.ts).toEqual(Array.from({ length: 10 }, (_, i) => 1009 - i).filter((k) => k % 7 !== 0).map((k) => DAY0 + k * 60_000));
      const across = await st.readRaw("t", "gauge", "g", { start: DAY0 + 2999 * 60_000, end: DAY0 + 3000 * 60_000 + 20_001, order: "asc" });
      expect(across.values).toEqual([OLD[0]!.values[2999], 0, 0.01, 0.02]);
    };
    await readsBack(s);
    await s.close();
    await readsBack(await open(d));
  });

  it("seals one codec block per chunk, of 1,024 to 2,047 points, never across a UTC day, for every type", async () => {
    const d = tempDir();
    const s = await open(d);
    const start = DAY0 + DAY_MS - 3000 * 10_000;
    const pts = Array.from({ length: 5000 }, (_, i) => ({ timestamp: start + i * 10_000, value: (i % 100) / 4 }));
    const strs = Array.from({ length: 1030 }, (_, i) => ({ timestamp: start + i, value: `line ${i % 7}`, tags: i % 2 ? { n: String(i % 3) } : undefined }));
    await s.write("t", [
      { type: "gauge", id: "g", points: pts },
      { type: "string", id: "s", points: strs },
    ]);
    s.flushDue(true);
    await s.close();
    const db = new Database(join(d, "metrics.db"), { readonly: true });
    const rows = db.query("SELECT c.n, c.start_ts, c.end_ts, c.format, c.body, length(c.ts) AS tsl, s.metric FROM chunks c JOIN series s USING (sid) ORDER BY cid").all() as {
      n: number;
      start_ts: number;
      end_ts: number;
      format: number;
      body: Uint8Array;
      tsl: number;
      metric: string;
    }[];
    // A new database hands the pages of the emptied ingest log back at a clean stop.
    expect(db.query("PRAGMA auto_vacuum").get()).toEqual({ auto_vacuum: 2 });
    expect(db.query("PRAGMA freelist_count").get()).toEqual({ freelist_count: 0 });
    db.close();
    const g = rows.filter((r) => r.metric === "g");
    // 3,000 points on the first day (two chunks of 1,500), 2,000 on the next (one chunk).
    expect(g.map((r) => r.n)).toEqual([1500, 1500, 2000]);
    for (const r of rows) {
      expect(r.format).toBe(1);
      expect(r.tsl).toBe(0);
      expect(Math.floor(r.start_ts / DAY_MS)).toBe(Math.floor(r.end_ts / DAY_MS));
      expect(inspectBlock(r.body).points).toBe(r.n);
    }
    const back = decodePoints(rows.find((r) => r.metric === "s")!.body);
    expect(back.strs).toEqual(strs.map((p) => p.value));
    expect(back.tags).toEqual(strs.map((p) => p.tags));
    const reopened = await open(d);
    expect((await reopened.readRaw("t", "gauge", "g", all)).values).toEqual(pts.map((p) => p.value));
    expect((await reopened.readRaw("t", "string", "s", all)).tags).toEqual(strs.map((p) => p.tags));
  });

  it("never loops on a timestamp that is not a number (kept out by ingest validation): the flush fails and keeps the points", async () => {
    const s = await open(tempDir());
    await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: DAY0, value: 1 }, { timestamp: Number.NaN, value: 2 }] }]);
    expect(() => s.flushDue(true)).toThrow();
    expect(s.stats().headPoints).toBe(2);
  });
});
