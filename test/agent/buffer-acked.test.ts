/**
 * Acknowledged rows stay in `chunks`, their ids recorded in `acked` (agent/buffer/acked-ranges.ts):
 * the send path never sees them again, after a reopen or a kill -9 too; local reads see them
 * within the window; a version-2 buffer's `kept` rows become window rows and its backlog is
 * forwarded once; after an older agent had the buffer, its ranges are no longer trusted.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_COMPACTION } from "../../agent/buffer/compaction.ts";
import { type BufferLimits, PointBuffer } from "../../agent/buffer/point-buffer.ts";
import { LocalHistory } from "../../agent/history/local-history.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { CHUNK_FORMAT, decodeSeriesChunk } from "../../src/protocol/series-chunk.ts";
import { schemaVersion } from "../../src/sqlite/migrations.ts";
import { openDatabase } from "../../src/sqlite/open.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const HOUR = 3_600_000;
const T0 = 1_700_000_000_000;
const dec = createDecoder();
const enc = createEncoder();

function newPath(): string {
  const d = mkdtempSync(join(tmpdir(), "outpost-acked-"));
  dirs.push(d);
  return join(d, "buffer.db");
}
const open = (path: string, limits: Partial<BufferLimits> = {}, now = () => T0) =>
  new PointBuffer(openDatabase(path), { tenant: "t", feed: "f" }, { maxBytes: 1e9, maxAgeMs: 30 * 24 * HOUR, chunkPoints: 10, historyMs: 24 * HOUR, ...limits }, createEncoder(), {}, now, 1);
const gauge = (id: string, from: number, n: number): MetricWrite => ({ type: "gauge", id, points: Array.from({ length: n }, (_, i) => ({ timestamp: from + i, value: i })) });

/** What the send path reads from the start, as `id@timestamp`, and the spans it read. */
function sendable(b: PointBuffer): { points: string[]; spans: [number, number][] } {
  const points: string[] = [];
  const spans: [number, number][] = [];
  for (let after = 0; ; ) {
    const s = b.read(after, Number.MAX_SAFE_INTEGER, 10);
    if (!s) return { points, spans };
    spans.push([s.lo, s.hi]);
    s.bodies.forEach((body, i) => {
      const writes = (s.formats[i]! & 15) === CHUNK_FORMAT.series ? decodeSeriesChunk(dec, body) : (dec.decode(body) as MetricWrite[]);
      for (const w of writes) for (const p of w.points) points.push(`${w.id}@${p.timestamp}`);
    });
    after = s.hi;
  }
}
const ack = (b: PointBuffer, spans: [number, number][]) => {
  for (const [lo, hi] of spans) b.remove(lo, hi);
  b.flush();
};
const names = (id: string, from: number, n: number) => Array.from({ length: n }, (_, i) => `${id}@${from + i}`);
const localRaw = async (_path: string, b: PointBuffer, id: string) =>
  (await new LocalHistory(b.database, dec, "t", 1).readRaw("t", "gauge", id, { start: 0, end: 1e15, order: "asc" })).ts.map(Number);

describe("acknowledged rows kept beside the backlog", () => {
  it("are never read by the send path again, also after a reopen, and stay readable locally", async () => {
    const path = newPath();
    const b = open(path);
    await b.append([gauge("a", 0, 30)]);
    await b.append([gauge("b", 0, 20)]);
    const first = sendable(b);
    expect(first.points).toEqual([...names("a", 0, 30), ...names("b", 0, 20)]);
    // Acknowledged out of order, as batches in flight may be.
    ack(b, [first.spans[3]!, first.spans[1]!]);
    expect(b.history.depth.points).toBe(20);
    expect(sendable(b).points).toEqual([...names("a", 0, 10), ...names("a", 20, 10), ...names("b", 10, 10)]);
    ack(b, [first.spans[0]!, first.spans[2]!]);
    expect(b.depth).toEqual({ points: 10, bytes: expect.any(Number), chunks: 1 });
    expect(b.history.depth.points).toBe(40);
    b.close();

    const again = open(path);
    expect(sendable(again).points).toEqual(names("b", 10, 10));
    expect(again.depth.points).toBe(10);
    expect(again.history.depth.points).toBe(40);
    expect(await localRaw(path, again, "a")).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(await localRaw(path, again, "b")).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Four acknowledged spans with nothing between: one range.
    const db = new Database(path, { readonly: true });
    expect(db.query("SELECT lo, hi FROM acked").all()).toHaveLength(1);
    db.close();
    again.close();
  });

  it("compacts window and backlog rows apart, each staying what it was", async () => {
    const path = newPath();
    let now = T0;
    const b = open(path, {}, () => now);
    for (let k = 0; k < 8; k++) await b.append([gauge("g", k * 10, 10)]);
    const spans = sendable(b).spans;
    // Rows 1-2 and 5-6 acknowledged: the window is two ranges with backlog rows around and between.
    ack(b, [spans[1]!, spans[2]!, spans[5]!, spans[6]!]);
    now += 2 * HOUR;
    const r = b.compact(dec, { ...DEFAULT_COMPACTION, minAgeMs: 0 });
    expect(r).toBeDefined();
    expect(sendable(b).points).toEqual([...names("g", 0, 10), ...names("g", 30, 20), ...names("g", 70, 10)]);
    expect(b.depth.points).toBe(40);
    expect(b.history.depth.points).toBe(40);
    expect(await localRaw(path, b, "g")).toEqual(Array.from({ length: 80 }, (_, i) => i));
    b.close();
  });

  it("gives way to the backlog at the size limit and leaves the window after it, ranges pruned", async () => {
    const path = newPath();
    let now = T0;
    const b = open(path, {}, () => now);
    await b.append([gauge("old", 0, 100)]);
    ack(b, sendable(b).spans);
    now += HOUR;
    await b.append([gauge("young", 0, 100)]);
    ack(b, sendable(b).spans.slice(0, 5));
    expect(b.history.depth.points).toBe(150);
    now += 23.5 * HOUR;
    b.expire();
    expect(b.history.depth.points).toBe(50);
    expect(sendable(b).points).toEqual(names("young", 50, 50));
    b.close();
    const db = new Database(path, { readonly: true });
    expect(db.query("SELECT count(*) AS c FROM chunks").get()).toEqual({ c: 10 });
    expect(db.query("SELECT lo, hi FROM acked").all()).toHaveLength(1);
    db.close();
  });
});

describe("a buffer of schema version 2", () => {
  /** What an agent of version 2 left: a backlog in `chunks`, acknowledged rows in `kept`. */
  function version2(path: string): void {
    const db = new Database(path, { create: true });
    db.exec(`PRAGMA journal_mode = WAL;
CREATE TABLE chunks (id INTEGER PRIMARY KEY AUTOINCREMENT, enq INTEGER NOT NULL, fmt INTEGER NOT NULL, n INTEGER NOT NULL, bytes INTEGER NOT NULL, body BLOB NOT NULL);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE kept (id INTEGER PRIMARY KEY, enq INTEGER NOT NULL, fmt INTEGER NOT NULL, n INTEGER NOT NULL, bytes INTEGER NOT NULL, body BLOB NOT NULL);
CREATE TABLE schema_floor (version INTEGER NOT NULL); INSERT INTO schema_floor VALUES (1);
INSERT INTO meta VALUES ('identity', '["t","f"]'), ('session', '7');
PRAGMA user_version = 2;`);
    const row = (table: string, id: number, w: MetricWrite) => {
      const body = enc.encode([w]);
      db.query(`INSERT INTO ${table} (id, enq, fmt, n, bytes, body) VALUES (?, ?, 1, ?, ?, ?)`).run(id, T0 - HOUR, w.points.length, body.length + 40, body);
    };
    // Ids 1-4 acknowledged (2 deleted by an old compaction), 5-6 not yet, 7 acknowledged out of order, 8 not.
    for (const id of [1, 3, 4, 7]) row("kept", id, gauge("acked", id * 10, 10));
    for (const id of [5, 6, 8]) row("chunks", id, gauge("backlog", id * 10, 10));
    db.close();
  }

  it("keeps its window rows readable as window rows and forwards its backlog exactly once", async () => {
    const path = newPath();
    version2(path);
    const b = open(path);
    expect(schemaVersion(b.database)).toBe(3);
    expect(b.history.depth).toEqual({ points: 40, bytes: expect.any(Number), rows: 4 });
    expect(b.depth.points).toBe(30);
    const sent = sendable(b);
    expect(sent.points).toEqual([...names("backlog", 50, 10), ...names("backlog", 60, 10), ...names("backlog", 80, 10)]);
    expect(await localRaw(path, b, "acked")).toEqual([1, 3, 4, 7].flatMap((id) => Array.from({ length: 10 }, (_, i) => id * 10 + i)));
    ack(b, sent.spans);
    b.close();
    const db = new Database(path, { readonly: true });
    expect(db.query("SELECT count(*) AS c FROM kept").get()).toEqual({ c: 0 });
    expect(db.query("SELECT lo, hi FROM acked").all()).toEqual([{ lo: 1, hi: 8 }]);
    db.close();
    const again = open(path);
    expect(sendable(again).points).toEqual([]);
    expect(again.history.depth.points).toBe(70);
    // New rows take ids above every range.
    await again.append([gauge("new", 0, 5)]);
    expect(sendable(again).points).toEqual(names("new", 0, 5));
    again.close();
  });

  it("after an older agent had the buffer, the ranges are dropped: what it left in chunks is backlog, what it kept is window", async () => {
    const path = newPath();
    const b = open(path);
    await b.append([gauge("x", 0, 40)]);
    const spans = sendable(b).spans;
    ack(b, spans.slice(0, 2));
    b.close();
    // An agent of version 2 opens it: it counts a session, takes ids 1-4 for backlog, resends
    // them, and moves the acknowledged ones 1-3 into `kept`.
    const db = new Database(path);
    db.exec("UPDATE meta SET value = CAST(value + 1 AS TEXT) WHERE key = 'session'");
    db.exec("INSERT INTO kept SELECT * FROM chunks WHERE id <= 3; DELETE FROM chunks WHERE id <= 3");
    db.close();
    const back = open(path);
    expect(back.history.depth.points).toBe(30);
    expect(sendable(back).points).toEqual(names("x", 30, 10));
    back.close();
  });
});

describe("taking in kept rows on a full disk", () => {
  it("deletes them when they cannot be copied: history only, already at the collector", async () => {
    const path = newPath();
    const b = open(path);
    await b.append([gauge("x", 0, 400)]);
    b.close();
    // An agent of version 2 had it and kept ids 1-30 for its window.
    const db = new Database(path);
    db.exec("UPDATE meta SET value = CAST(value + 1 AS TEXT) WHERE key = 'session'");
    db.exec("INSERT INTO kept SELECT * FROM chunks WHERE id <= 30; DELETE FROM chunks WHERE id <= 30");
    db.close();
    // No free page and none to grow into: the copy back into chunks fails, the delete does not.
    const full = openDatabase(path);
    full.exec("VACUUM");
    full.exec(`PRAGMA max_page_count = ${(full.query("PRAGMA page_count").get() as { page_count: number }).page_count}`);
    const back = new PointBuffer(full, { tenant: "t", feed: "f" }, { maxBytes: 1e9, maxAgeMs: 30 * 24 * HOUR, chunkPoints: 10, historyMs: 24 * HOUR }, createEncoder(), {}, () => T0, 1);
    expect(back.history.depth.points).toBe(0);
    expect(sendable(back).points).toEqual(names("x", 300, 100));
    expect(back.database.query("SELECT count(*) AS c FROM kept").get()).toEqual({ c: 0 });
    back.close();
  });
});

describe("acknowledgements across a kill -9", () => {
  it("a span acknowledged and committed is never read again after the process is killed", async () => {
    const path = newPath();
    const child = Bun.spawn([process.execPath, "test/agent/ack-kill-child.ts", path], { stdout: "pipe", stderr: "inherit" });
    const reader = child.stdout.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let acked = 0;
    let lines = 0;
    while (lines < 40) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the child exited early (${await child.exited})`);
      text += decoder.decode(value);
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n")) {
        const line = text.slice(0, nl);
        text = text.slice(nl + 1);
        if (line.startsWith("acked ")) acked = Number(line.slice(6));
        lines++;
      }
    }
    child.kill("SIGKILL");
    await child.exited;
    expect(acked).toBeGreaterThan(0);
    const b = open(path, { chunkPoints: 100 });
    const sent = sendable(b);
    // Every point appended is once in the backlog or the window, never both; nothing at or below the last committed ack is sent.
    expect(sent.spans.every(([lo]) => lo > acked)).toBe(true);
    const all = await localRaw(path, b, "k");
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(b.depth.points + b.history.depth.points);
    for (let i = 0; i < all.length; i++) expect(all[i]).toBe(i);
    b.close();
  });
});
