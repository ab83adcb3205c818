import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CompactionOptions, DEFAULT_COMPACTION } from "../../agent/buffer/compaction.ts";
import { type BufferLimits, type DropReason, PointBuffer } from "../../agent/buffer/point-buffer.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { decodeData, encodeData } from "../../src/protocol/messages.ts";
import { CHUNK_FORMAT, decodeSeriesChunk, MARKERS_FLAG } from "../../src/protocol/series-chunk.ts";
import { STALE_NAN } from "../../src/prometheus/staleness.ts";
import { openDatabase } from "../../src/sqlite/open.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDb() {
  const d = mkdtempSync(join(tmpdir(), "outpost-compact-"));
  dirs.push(d);
  return join(d, "buffer.db");
}

const HOUR = 3_600_000;
const T0 = 100 * HOUR;
const dec = createDecoder();
const opts: CompactionOptions = { ...DEFAULT_COMPACTION };

function open(path: string, clock: { t: number }, limits: Partial<BufferLimits> = {}) {
  const drops: [DropReason, number][] = [];
  const b = new PointBuffer(openDatabase(path), { tenant: "t", feed: "f" }, { maxBytes: 1e9, maxAgeMs: 48 * HOUR, chunkPoints: 1000, ...limits }, createEncoder(), { dropped: (r, p) => drops.push([r, p]) }, () => clock.t, 1);
  return { b, drops };
}

/** One sample of a few series of every type, at time t (point k). */
function sample(t: number, k: number): MetricWrite[] {
  return [
    { type: "gauge", id: "cpu", points: [{ timestamp: t, value: k % 7 === 0 ? 12.34 : k / 4 }] },
    { type: "counter", id: "bytes_total", points: [{ timestamp: t, value: k * 4096 }] },
    { type: "availability", id: "up", points: [{ timestamp: t, value: k % 5 === 0 ? "down" : "up" }] },
    { type: "string", id: "state", points: [{ timestamp: t, value: `s${k % 3}`, tags: k % 2 ? { zone: "a" } : undefined }].map((p) => (p.tags ? p : { timestamp: p.timestamp, value: p.value })) },
  ];
}

/** Every point of a span as "type id @ts = value tags", in the order sent. */
function pointsOf(span: { bodies: Uint8Array[]; formats: number[] } | undefined): string[] {
  if (!span) return [];
  return span.bodies.flatMap((body, i) => {
    const writes = span.formats[i] === CHUNK_FORMAT.series ? decodeSeriesChunk(dec, body) : (dec.decode(body) as MetricWrite[]);
    return writes.flatMap((w) => w.points.map((p) => `${w.type} ${w.id} @${p.timestamp} = ${p.value} ${JSON.stringify(p.tags ?? {})}`));
  });
}

const sortKey = (s: string[]) => [...s].sort();

async function fill(b: PointBuffer, clock: { t: number }, from: number, count: number, stepMs = 10_000) {
  for (let k = from; k < from + count; k++) {
    clock.t = T0 + k * stepMs;
    await b.append(sample(clock.t, k));
  }
}

const rows = (path: string) => {
  const db = new Database(path, { readonly: true });
  const r = db.query("SELECT id, enq, fmt, n FROM chunks ORDER BY id").all() as { id: number; enq: number; fmt: number; n: number }[];
  db.close();
  return r;
};

describe("agent buffer compaction", () => {
  it("merges rows older than a minute into one row per hour window, keeping every point once and the newest id", async () => {
    const path = tempDb();
    const clock = { t: T0 };
    const { b } = open(path, clock);
    await fill(b, clock, 0, 720); // two hours of 10 s samples, 4 points each
    const before = pointsOf(b.read(0, Number.MAX_SAFE_INTEGER, 1e9));
    const ids = rows(path).map((r) => r.id);
    const bytesBefore = b.depth.bytes;
    clock.t += 30_000; // the newest four rows were buffered a minute ago or less
    const r = b.compact(dec, opts)!;
    expect(r.unreadable).toBe(0);
    const after = rows(path);
    // Hour 100 and hour 101 (minus its last 4 rows, still live): two merged rows, then 4 raw rows.
    expect(after.map((x) => x.fmt)).toEqual([2, 2, 1, 1, 1, 1]);
    expect(after[0]!.id).toBe(ids[359]);
    expect(after[1]!.id).toBe(ids[715]);
    expect(after.slice(2).map((x) => x.id)).toEqual(ids.slice(716));
    expect(after[0]!.enq).toBe(T0 + 359 * 10_000);
    expect(after[0]!.n).toBe(360 * 4);
    expect(b.depth.points).toBe(720 * 4);
    expect(b.depth.chunks).toBe(6);
    expect(b.depth.bytes).toBeLessThan(bytesBefore / 5);
    // Per series the order is kept; across series a merged row groups by series.
    const again = pointsOf(b.read(0, Number.MAX_SAFE_INTEGER, 1e9));
    expect(sortKey(again)).toEqual(sortKey(before));
    expect(again.filter((p) => p.startsWith("gauge cpu"))).toEqual(before.filter((p) => p.startsWith("gauge cpu")));
    b.close();
  });

  it("flags rows holding staleness markers, and keeps the flag when it merges them, so they travel as version 3", async () => {
    const path = tempDb();
    const clock = { t: T0 };
    const { b } = open(path, clock);
    await fill(b, clock, 0, 3);
    clock.t += 10_000;
    await b.append([{ type: "gauge", id: "cpu", points: [{ timestamp: clock.t, value: STALE_NAN }] }]);
    await fill(b, clock, 5, 2);
    expect(rows(path).map((r) => r.fmt)).toEqual([1, 1, 1, 1 | MARKERS_FLAG, 1, 1]);
    const sent = b.read(0, Number.MAX_SAFE_INTEGER, 1e9)!;
    expect((dec.decode(encodeData(createEncoder(), { session: 1, seq: 1, sentAt: 0, replay: false, chunks: sent.bodies, formats: sent.formats })) as { v: number }).v).toBe(3);
    clock.t += HOUR;
    b.compact(dec, opts);
    expect(rows(path).map((r) => r.fmt)).toEqual([CHUNK_FORMAT.series | MARKERS_FLAG]);
    const merged = b.read(0, Number.MAX_SAFE_INTEGER, 1e9)!;
    const batch = decodeData(dec, encodeData(createEncoder(), { session: 1, seq: 1, sentAt: 0, replay: true, chunks: merged.bodies, formats: merged.formats }));
    const cpu = batch.writes.find((w) => w.id === "cpu")!;
    expect(cpu.points.filter((p) => Number.isNaN(p.value))).toHaveLength(1);
    expect(batch.points).toBe(5 * 4 + 1);
    b.close();
  });

  it("leaves alone a row too large to merge whose series have one point each (a scrape), and still compacts a large row of long series", async () => {
    const path = tempDb();
    const clock = { t: T0 };
    const { b } = open(path, clock, { chunkPoints: 20_000 });
    // A scrape: 12,000 series of one point, about 1 MB, so it merges with nothing.
    const scrape = Array.from({ length: 12_000 }, (_, i) => ({ type: "gauge" as const, id: `scraped_requests_total{instance="127.0.0.1:9100",job="app",n="${i}"}`, points: [{ timestamp: clock.t, value: i }] }));
    await b.append(scrape);
    // A write of few series with many points each, as large.
    clock.t += 1000;
    const long = Array.from({ length: 4 }, (_, s) => ({ type: "gauge" as const, id: `long_${s}`, points: Array.from({ length: 15_000 }, (_, k) => ({ timestamp: T0 + k * 1000, value: (k * 7919 + s) % 1000 })) }));
    await b.append(long);
    const before = rows(path);
    expect(before.map((r) => r.fmt)).toEqual([1, 1, 1, 1]);
    // Every row is over the maxBytes below: none can merge with another.
    const db = new Database(path, { readonly: true });
    const sizes = db.query("SELECT bytes FROM chunks ORDER BY id").all() as { bytes: number }[];
    db.close();
    expect(sizes.every((r) => r.bytes > 128 * 1024)).toBe(true);
    clock.t += 61_000;
    b.compact(dec, { ...opts, maxBytes: 128 * 1024 });
    const after = rows(path);
    // The scrape's row is as it was; the long series' rows became codec blocks.
    expect(after[0]).toEqual(before[0]);
    expect(after.slice(1).every((r) => r.fmt === CHUNK_FORMAT.series)).toBe(true);
    const points = pointsOf(b.read(0, Number.MAX_SAFE_INTEGER, 1e9));
    expect(points).toHaveLength(12_000 + 60_000);
    b.close();
  });

  it("merges rows of one point per series only when several can merge, so that series get several points", async () => {
    const path = tempDb();
    const clock = { t: T0 };
    const { b } = open(path, clock, { chunkPoints: 5000 });
    const scrape = (n: number) => Array.from({ length: n }, (_, i) => ({ type: "gauge" as const, id: `app_requests_total{instance="10.1.2.3:8080",job="app",route="/r${i}"}`, points: [{ timestamp: clock.t, value: i }] }));
    // A scrape of 8,000 series: two rows that fit in one merged row, but no series would get two points.
    await b.append(scrape(8000));
    clock.t += 61_000;
    b.compact(dec, opts);
    expect(rows(path).map((r) => r.fmt)).toEqual([1, 1]);
    // Scrapes of 200 series every 10 s: rows that merge by the dozen.
    const small = open(tempDb(), clock, { chunkPoints: 5000 });
    for (let k = 0; k < 12; k++) {
      clock.t += 10_000;
      await small.b.append(scrape(200));
    }
    clock.t += 61_000;
    small.b.compact(dec, opts);
    const kept = small.b.read(0, Number.MAX_SAFE_INTEGER, 1e9)!;
    expect(kept.formats).toEqual([CHUNK_FORMAT.series]);
    expect(pointsOf(kept)).toHaveLength(2400);
    small.b.close();
    b.close();
  });

  it("never merges a large scrape's row with the few small rows around it (no series would get a second point), and still merges the small rows when they come alone", async () => {
    const path = tempDb();
    const clock = { t: T0 };
    const { b } = open(path, clock, { chunkPoints: 5000 });
    const series = (name: string, n: number) => Array.from({ length: n }, (_, i) => ({ type: "gauge" as const, id: `${name}{instance="10.1.2.3:9100",job="${name}",n="${i}"}`, points: [{ timestamp: clock.t, value: i }] }));
    // As a scraping agent buffers every 10 s: host metrics, its own metrics, then a scrape of 5,000 series.
    for (let k = 0; k < 6; k++) {
      clock.t += 10_000;
      await b.append(series("host", 46));
      await b.append(series("own", 5));
      await b.append(series("app", 5000));
    }
    const before = rows(path);
    clock.t += 61_000;
    expect(b.compact(dec, opts)?.removed).toBe(0);
    expect(rows(path)).toEqual(before);
    // The same small rows without the scrape between them: series get a point a row.
    const small = open(tempDb(), clock, { chunkPoints: 5000 });
    for (let k = 0; k < 6; k++) {
      clock.t += 10_000;
      await small.b.append(series("host", 46));
      await small.b.append(series("own", 5));
    }
    clock.t += 61_000;
    small.b.compact(dec, opts);
    const kept = small.b.read(0, Number.MAX_SAFE_INTEGER, 1e9)!;
    expect(kept.formats).toEqual([CHUNK_FORMAT.series]);
    expect(pointsOf(kept)).toHaveLength(6 * 51);
    small.b.close();
    b.close();
  });

  it("merges later rows into the window's merged row, and never compacts live rows", async () => {
    const path = tempDb();
    const clock = { t: T0 };
    const { b } = open(path, clock);
    await fill(b, clock, 0, 30);
    clock.t += 59_000;
    b.compact(dec, opts);
    expect(rows(path).filter((r) => r.fmt === 2)).toHaveLength(1);
    const live = rows(path).filter((r) => r.fmt === 1);
    expect(live.every((r) => r.enq >= clock.t - 60_000)).toBe(true);
    await fill(b, clock, 30, 30);
    clock.t += 61_000;
    b.compact(dec, opts);
    const all = rows(path);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ fmt: 2, n: 60 * 4 });
    expect(new Set(pointsOf(b.read(0, Number.MAX_SAFE_INTEGER, 1e9))).size).toBe(240);
    b.close();
  });

  it("leaves batches in flight and acknowledged spans awaiting removal alone, so acks keep their meaning", async () => {
    const path = tempDb();
    const clock = { t: T0 };
    const { b } = open(path, clock);
    await fill(b, clock, 0, 40);
    const ids = rows(path).map((r) => r.id);
    const inFlight = b.read(ids[9]!, ids[19]!, 1e9)!; // rows 10..19
    const acked = b.read(ids[29]!, ids[34]!, 1e9)!; // rows 30..34
    const inFlightPoints = pointsOf(inFlight);
    b.remove(acked.lo, acked.hi); // not committed yet (the group timer has not run)
    clock.t += HOUR / 2;
    b.compact(dec, opts, [{ lo: inFlight.lo, hi: inFlight.hi }]);
    const after = rows(path);
    // rows 0..9 merged; 10..19 untouched; 20..29 merged; 30..34 untouched; 35..39 merged.
    expect(after.map((r) => r.id)).toEqual([ids[9], ...ids.slice(10, 20), ids[29], ...ids.slice(30, 35), ids[39]]);
    expect(pointsOf(b.span(inFlight.lo, inFlight.hi))).toEqual(inFlightPoints);
    // The ack of the batch in flight removes exactly its points.
    b.remove(inFlight.lo, inFlight.hi);
    b.flush();
    expect(b.depth.points).toBe((40 - 10 - 5) * 4);
    const left = pointsOf(b.read(0, Number.MAX_SAFE_INTEGER, 1e9));
    expect(left).toHaveLength(25 * 4);
    expect(left.some((p) => inFlightPoints.includes(p))).toBe(false);
    b.close();
  });

  it("caps merged rows at maxPoints and keeps counting them against the size and age limits", async () => {
    const path = tempDb();
    const clock = { t: T0 };
    const { b, drops } = open(path, clock, { maxAgeMs: 2 * HOUR });
    await fill(b, clock, 0, 300);
    clock.t += 120_000;
    b.compact(dec, { ...opts, maxPoints: 400 });
    const merged = rows(path);
    expect(merged.every((r) => r.fmt === 2 && r.n <= 400)).toBe(true);
    expect(merged.reduce((n, r) => n + r.n, 0)).toBe(1200);
    // Age: rows expire by the buffering time of their newest point.
    clock.t = merged[1]!.enq + 2 * HOUR + 1;
    b.expire();
    expect(drops).toEqual([["age", merged[0]!.n + merged[1]!.n]]);
    expect(b.depth.points).toBe(1200 - merged[0]!.n - merged[1]!.n);
    // Size: a limit below the buffered bytes drops whole merged rows, oldest first.
    b.close();
    const small = open(path, clock, { maxBytes: 1 });
    await small.b.append(sample(clock.t, 0));
    expect(small.b.depth.points).toBe(0);
    expect(small.drops[0]![0]).toBe("size");
    small.b.close();
  });

  it("opens a buffer written by the previous layout and compacts and sends its rows", async () => {
    const path = tempDb();
    // The layout before compaction (agent/buffer/schema.ts as of 0.1.0): CBOR chunks, fmt 1.
    const old = new Database(path, { create: true });
    old.exec("PRAGMA journal_mode = WAL");
    old.exec(`CREATE TABLE chunks (id INTEGER PRIMARY KEY AUTOINCREMENT, enq INTEGER NOT NULL, fmt INTEGER NOT NULL, n INTEGER NOT NULL, bytes INTEGER NOT NULL, body BLOB NOT NULL);
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      PRAGMA user_version = 1;`);
    old.query("INSERT INTO meta VALUES ('identity', ?), ('session', '4')").run(JSON.stringify(["t", "f"]));
    const enc = createEncoder();
    const expected: string[] = [];
    for (let k = 0; k < 50; k++) {
      const w = sample(T0 + k * 10_000, k);
      const body = enc.encode(w);
      old.query("INSERT INTO chunks (enq, fmt, n, bytes, body) VALUES (?, 1, 4, ?, ?)").run(T0 + k * 10_000, body.length + 40, body);
      expected.push(...pointsOf({ bodies: [body], formats: [1] }));
    }
    old.close();
    const clock = { t: T0 + HOUR };
    const { b } = open(path, clock);
    expect(b.session).toBe(5);
    expect(b.depth.points).toBe(200);
    expect(sortKey(pointsOf(b.read(0, Number.MAX_SAFE_INTEGER, 1e9)))).toEqual(sortKey(expected));
    b.compact(dec, opts);
    expect(rows(path).map((r) => r.fmt)).toEqual([2]);
    const span = b.read(0, Number.MAX_SAFE_INTEGER, 5)!;
    expect(span.formats).toEqual([CHUNK_FORMAT.series]);
    expect(sortKey(pointsOf(span))).toEqual(sortKey(expected));
    b.close();
  });

  it("opens and compacts the buffer release 0.1.0 wrote", () => {
    const path = tempDb();
    const old = new Database(path, { create: true });
    old.exec(readFileSync(join(import.meta.dirname, "../fixtures/release-0.1.0/buffer.sql"), "utf8"));
    old.close();
    const clock = { t: 0 };
    const b = new PointBuffer(openDatabase(path), { tenant: "acme", feed: "edge-1" }, { maxBytes: 1e9, maxAgeMs: 1e12, chunkPoints: 5000 }, createEncoder(), {}, () => clock.t, 1);
    const before = pointsOf(b.read(0, Number.MAX_SAFE_INTEGER, 1e9));
    expect(before).toHaveLength(50);
    clock.t = rows(path).at(-1)!.enq + HOUR;
    b.compact(dec, opts);
    expect(rows(path).map((r) => [r.fmt, r.n])).toEqual([[2, 50]]);
    expect(pointsOf(b.read(0, Number.MAX_SAFE_INTEGER, 1e9))).toEqual(before);
    b.close();
  });

  it("leaves a row it cannot decode as it is", async () => {
    const path = tempDb();
    const clock = { t: T0 };
    const { b } = open(path, clock);
    await fill(b, clock, 0, 3);
    const db = new Database(path);
    const mid = rows(path)[1]!.id;
    db.query("UPDATE chunks SET body = x'ff00' WHERE id = ?").run(mid);
    db.close();
    clock.t += HOUR;
    const r = b.compact(dec, opts)!;
    expect(r.unreadable).toBe(1);
    expect(rows(path).map((x) => [x.fmt, x.n])).toEqual([
      [2, 4],
      [1, 4],
      [2, 4],
    ]);
    expect(b.depth.points).toBe(12);
    b.close();
  });
});

describe("compacted backlog and fresh data", () => {
  it("sends fresh rows before the compacted backlog, unthrottled", async () => {
    const { SendPlanner } = await import("../../agent/forward/send-planner.ts");
    const path = tempDb();
    const clock = { t: T0 };
    const { b } = open(path, clock);
    await fill(b, clock, 0, 360); // an hour of outage
    clock.t += 120_000;
    b.compact(dec, opts);
    const planner = new SendPlanner(b, { batchPoints: 500, replayRate: 1000, freshAgeMs: 20_000 }, () => clock.t);
    await b.append(sample(clock.t, 9999)); // live data after reconnecting
    const first = planner.next();
    expect(first.replay).toBe(false);
    expect(first.span!.formats).toEqual([CHUNK_FORMAT.cbor]);
    const second = planner.next();
    expect(second.replay).toBe(true);
    expect(second.span!.formats).toEqual([CHUNK_FORMAT.series]);
    expect(second.span!.points).toBe(1440);
    // The compacted row (1,440 points) spent more than the 1,000-point burst; fresh data still goes at once.
    clock.t += 100;
    await b.append(sample(clock.t, 10_000));
    expect(planner.next().replay).toBe(false);
    b.close();
  });
});
