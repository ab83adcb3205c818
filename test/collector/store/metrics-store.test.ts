import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { encodeChunk } from "../../../collector/store/metrics/chunk-codec.ts";
import { buildLogBody, decodeLogBody, encodeLogBody } from "../../../collector/store/metrics/log-body.ts";
import { encode } from "../../../src/cbor/cbor.ts";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { DAY_MS } from "../../../src/metrics/model.ts";

const dirs: string[] = [];
const stores: SqliteMetricsStore[] = [];
async function open(dir?: string, extra: Partial<Parameters<typeof openSqliteMetricsStore>[0]> = {}) {
  const d = dir ?? mkdtempSync(join(tmpdir(), "outpost-store-"));
  if (!dir) dirs.push(d);
  const s = await openSqliteMetricsStore({ dataDir: d, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, ...extra });
  stores.push(s);
  return { s, d };
}
afterEach(async () => {
  for (const s of stores.splice(0)) if (s.ready()) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const NOW = Date.now();
const pts = (n: number, t0: number, step: number, f: (i: number) => number) =>
  Array.from({ length: n }, (_, i) => ({ timestamp: t0 + i * step, value: f(i) }));
const all = { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" as const };

/**
 * A metrics.db as the first layout (schema version 1) wrote it: chunks without expires_at, the
 * range index without it, one chunk per UTC day of gauge "old" of tenant "t".
 */
function writeVersion1Database(file: string, points: { timestamp: number; value: number }[]): void {
  const db = new Database(file, { create: true });
  db.exec(`
    CREATE TABLE tenants (id TEXT PRIMARY KEY, retentions TEXT, created INTEGER NOT NULL);
    CREATE TABLE series (sid INTEGER PRIMARY KEY, tenant TEXT NOT NULL, type TEXT NOT NULL, metric TEXT NOT NULL, tags TEXT,
      retention INTEGER, min_ts INTEGER, max_ts INTEGER, flushed_seq INTEGER NOT NULL DEFAULT 0, UNIQUE (tenant, type, metric));
    CREATE TABLE ingest_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, body BLOB NOT NULL);
    CREATE TABLE chunks (cid INTEGER PRIMARY KEY AUTOINCREMENT, sid INTEGER NOT NULL, start_ts INTEGER NOT NULL, end_ts INTEGER NOT NULL,
      n INTEGER NOT NULL, ts BLOB NOT NULL, vals BLOB NOT NULL, tags BLOB);
    CREATE INDEX chunks_by_series ON chunks (sid, start_ts, end_ts);
    PRAGMA user_version = 1;
  `);
  db.query("INSERT INTO tenants (id, retentions, created) VALUES ('t', NULL, 0)").run();
  const ts = points.map((p) => p.timestamp);
  db.query("INSERT INTO series (sid, tenant, type, metric, tags, min_ts, max_ts, flushed_seq) VALUES (1, 't', 'gauge', 'old', ?, ?, ?, 0)").run(
    JSON.stringify({ k: "v" }),
    Math.min(...ts),
    Math.max(...ts),
  );
  const insert = db.query("INSERT INTO chunks (sid, start_ts, end_ts, n, ts, vals, tags) VALUES (1, ?, ?, 1, ?, ?, ?)");
  for (const p of points) {
    const blobs = encodeChunk({ ts: Float64Array.of(p.timestamp), nums: Float64Array.of(p.value) });
    insert.run(p.timestamp, p.timestamp, blobs.ts, blobs.vals, blobs.tags);
  }
  db.close();
}

describe("SQLite metrics store", () => {
  it("reads back what was written, in both orders and with a limit", async () => {
    const { s } = await open();
    await s.write("t", [{ type: "gauge", id: "g", points: pts(10, NOW - 10_000, 1000, (i) => i * 1.5) }]);
    const asc = await s.readRaw("t", "gauge", "g", all);
    expect(asc.ts).toEqual(pts(10, NOW - 10_000, 1000, () => 0).map((p) => p.timestamp));
    expect(asc.values).toEqual(pts(10, 0, 1, (i) => i * 1.5).map((p) => p.value));
    const desc = await s.readRaw("t", "gauge", "g", { ...all, order: "desc", limit: 3 });
    expect(desc.values).toEqual([13.5, 12, 10.5]);
  });

  it("keeps one point per timestamp, the last written, before and after flushing", async () => {
    const { s } = await open();
    await s.write("t", [{ type: "counter", id: "c", points: pts(5, NOW - 5000, 1000, (i) => i) }]);
    await s.write("t", [{ type: "counter", id: "c", points: [{ timestamp: NOW - 3000, value: 99 }] }]);
    expect((await s.readRaw("t", "counter", "c", all)).values).toEqual([0, 1, 99, 3, 4]);
    s.flushDue(true);
    await s.write("t", [{ type: "counter", id: "c", points: [{ timestamp: NOW - 4000, value: 77 }] }]);
    const r = await s.readRaw("t", "counter", "c", all);
    expect(r.values).toEqual([0, 77, 99, 3, 4]);
    s.flushDue(true);
    expect((await s.readRaw("t", "counter", "c", all)).values).toEqual([0, 77, 99, 3, 4]);
    expect(s.stats().chunks).toBe(2);
  });

  it("sorts out-of-order points", async () => {
    const { s } = await open();
    await s.write("t", [
      { type: "gauge", id: "g", points: [3, 1, 2, 1].map((k, i) => ({ timestamp: NOW - 10_000 + k * 1000, value: i })) },
    ]);
    const r = await s.readRaw("t", "gauge", "g", all);
    expect(r.ts).toEqual([1, 2, 3].map((k) => NOW - 10_000 + k * 1000));
    expect(r.values).toEqual([3, 2, 0]);
  });

  it("survives an unclean stop: the log is replayed on open", async () => {
    const { s, d } = await open();
    await s.write("t", [{ type: "gauge", id: "g", points: pts(100, NOW - 100_000, 1000, (i) => i) }]);
    s.flushDue(true);
    await s.write("t", [{ type: "gauge", id: "g", points: pts(50, NOW - 50_000 + 500, 1000, (i) => -i) }]);
    await s.write("t", [{ type: "string", id: "s", points: [{ timestamp: NOW - 1, value: "hello", tags: { a: "1" } }] }]);
    // No close(): simulate a crash by opening a second store on the same files.
    const again = (await open(d)).s;
    const r = await again.readRaw("t", "gauge", "g", all);
    expect(r.ts.length).toBe(150);
    const sr = await again.readRaw("t", "string", "s", all);
    expect(sr).toEqual({ ts: [NOW - 1], values: ["hello"], tags: [{ a: "1" }] });
    const def = await again.getMetric("t", "gauge", "g");
    expect(def?.minTimestamp).toBe(NOW - 100_000);
    expect(def?.maxTimestamp).toBe(NOW - 50_000 + 500 + 49_000);
  });

  it("replays every body of a group commit, each encoded in turn into the store's one log buffer", async () => {
    const { s, d } = await open();
    // Columnar bodies (as the ingest worker gives) and object writes in one event-loop turn: one
    // transaction, one log row each, written one after the other through the same buffer.
    const cols = (tenant: number) => ({
      type: "gauge" as const,
      ids: ["a", "b"],
      counts: Uint32Array.from([3, 2]),
      ts: Float64Array.from([0, 1, 2, 0, 1].map((i) => NOW - 10_000 + i * 1000)),
      values: Float64Array.from([1, 2, 3, 4, 5].map((v) => tenant * 100 + v)),
      tags: [],
    });
    await Promise.all([
      s.writeColumns("t1", cols(1)),
      s.write("t1", [{ type: "gauge", id: "c", points: [{ timestamp: NOW - 1000, value: 7 }] }]),
      s.writeColumns("t2", cols(2)),
    ]);
    expect(s.stats().logBatches).toBe(3);
    // No close(): a crash; the second store replays the log.
    const again = (await open(d)).s;
    expect((await again.readRaw("t1", "gauge", "a", all)).values).toEqual([101, 102, 103]);
    expect((await again.readRaw("t1", "gauge", "b", all)).values).toEqual([104, 105]);
    expect((await again.readRaw("t1", "gauge", "c", all)).values).toEqual([7]);
    expect((await again.readRaw("t2", "gauge", "a", all)).values).toEqual([201, 202, 203]);
    expect((await again.readRaw("t2", "gauge", "b", all)).values).toEqual([204, 205]);
  });

  it("replays a log with staleness markers of a series deleted since, and the strings after it", async () => {
    const { s, d } = await open();
    await s.write("t", [
      { type: "gauge", id: "gone", points: [{ timestamp: NOW, value: 1 }, { timestamp: NOW + 1, value: Number.NaN }] },
      { type: "string", id: "s", points: [{ timestamp: NOW, value: "first" }] },
    ]);
    await s.write("t", [
      { type: "gauge", id: "kept", points: [{ timestamp: NOW, value: Number.NaN }] },
      { type: "string", id: "s", points: [{ timestamp: NOW + 1, value: "second" }] },
    ]);
    // A point of the deleted series' write group must not be taken for a string's place.
    expect(await s.deleteMetric("t", "gauge", "gone")).toBe(true);
    const again = (await open(d)).s;
    expect((await again.readRaw("t", "string", "s", all)).values).toEqual(["first", "second"]);
    expect([...(await again.readSeries("t", "gauge", "kept", NOW, NOW + 1))!.values]).toEqual([Number.NaN]);
  });

  it("reads log bodies of version 2 (written before markers were stored) and version 3", () => {
    const v2 = encode([2, Uint32Array.of(1, 2), Uint32Array.of(1, 1), Float64Array.of(NOW, NOW), Float64Array.of(Number.NaN, 5), ["x"], []]);
    const old = decodeLogBody(v2);
    expect(old.strParts).toBeUndefined();
    expect([...old.nums]).toEqual([Number.NaN, 5]);
    const body = buildLogBody(
      [
        { type: "string", id: "s", points: [{ timestamp: NOW, value: "x" }] },
        { type: "gauge", id: "g", points: [{ timestamp: NOW, value: Number.NaN }] },
      ],
      [1, 2],
    );
    expect([...decodeLogBody(encodeLogBody(body)).strParts!]).toEqual([1, 0]);
  });

  it("splits chunks at UTC day boundaries and reads ranges across them", async () => {
    const { s } = await open();
    const day0 = Math.floor((NOW - 3 * DAY_MS) / DAY_MS) * DAY_MS;
    const points = pts(3 * 24, day0, 3_600_000, (i) => i);
    await s.write("t", [{ type: "gauge", id: "g", points }]);
    s.flushDue(true);
    expect(s.stats().chunks).toBe(3);
    const r = await s.readRaw("t", "gauge", "g", { start: day0 + 20 * 3_600_000, end: day0 + 30 * 3_600_000, order: "asc" });
    expect(r.values).toEqual(Array.from({ length: 10 }, (_, i) => 20 + i));
  });

  it("counts retention from the time a point was written: a backfill of old points stays its retention", async () => {
    let clock = NOW;
    const { s } = await open(undefined, { now: () => clock });
    await s.createMetric({ tenantId: "t", type: "gauge", id: "g", dataRetention: 2 }, false);
    // Timestamps 5, 3 and 1 days old, all written now: all readable, in the head and once flushed.
    await s.write("t", [{ type: "gauge", id: "g", points: [5, 3, 1].map((d, i) => ({ timestamp: NOW - d * DAY_MS, value: i })) }]);
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([0, 1, 2]);
    s.flushDue(true);
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([0, 1, 2]);
    expect((await s.getMetric("t", "gauge", "g"))?.minTimestamp).toBe(NOW - 5 * DAY_MS);
    // A point written a day later lives a day longer.
    clock = NOW + DAY_MS;
    await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW - 4 * DAY_MS, value: 9 }] }]);
    s.flushDue(true);
    clock = NOW + 2 * DAY_MS - 1;
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([0, 9, 1, 2]);
    // Two days after the first write its points are gone from reads at once...
    clock = NOW + 2 * DAY_MS;
    expect((await s.readRaw("t", "gauge", "g", all)).values).toEqual([9]);
    // ...and from disk and the definition's bounds when retention runs.
    s.enforceRetention();
    expect(s.stats().chunks).toBe(1);
    const def = await s.getMetric("t", "gauge", "g");
    expect([def?.minTimestamp, def?.maxTimestamp]).toEqual([NOW - 4 * DAY_MS, NOW - 4 * DAY_MS]);
    clock = NOW + 3 * DAY_MS;
    s.enforceRetention();
    expect(s.stats().chunks).toBe(0);
    expect((await s.getMetric("t", "gauge", "g"))?.minTimestamp).toBeUndefined();
  });

  it("applies tenant retentions per type when the metric has none, fixed when the points are written", async () => {
    let clock = NOW;
    const { s } = await open(undefined, { now: () => clock });
    await s.createTenant({ id: "t", retentions: { gauge: 1 } }, false);
    await s.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: NOW - 2 * DAY_MS, value: 1 }] }]);
    await s.write("t", [{ type: "counter", id: "c", points: [{ timestamp: NOW - 2 * DAY_MS, value: 1 }] }]);
    s.flushDue(true);
    expect((await s.readRaw("t", "gauge", "g", all)).ts).toEqual([NOW - 2 * DAY_MS]);
    // Retention is the one in force when the points were stored (as a Cassandra TTL was upstream).
    await s.createTenant({ id: "t", retentions: { gauge: 30 } }, true);
    clock = NOW + DAY_MS;
    expect((await s.readRaw("t", "gauge", "g", all)).ts).toEqual([]);
    expect((await s.readRaw("t", "counter", "c", all)).ts).toEqual([NOW - 2 * DAY_MS]);
  });

  it("opens a database of the first layout: old chunks keep expiring by timestamp, new ones by write time", async () => {
    const d = mkdtempSync(join(tmpdir(), "outpost-store-v1-"));
    dirs.push(d);
    writeVersion1Database(join(d, "metrics.db"), [
      { timestamp: NOW - 10 * DAY_MS, value: 1 },
      { timestamp: NOW - 3 * DAY_MS, value: 2 },
      { timestamp: NOW - DAY_MS, value: 3 },
    ]);
    let clock = NOW;
    const { s } = await open(d, { now: () => clock });
    // Version 1 rule for its chunks (one per UTC day, default retention 7 days): the 10-day-old one is hidden.
    expect((await s.readRaw("t", "gauge", "old", all)).values).toEqual([2, 3]);
    expect((await s.getMetric("t", "gauge", "old"))?.tags).toEqual({ k: "v" });
    await s.write("t", [{ type: "gauge", id: "old", points: [{ timestamp: NOW - 20 * DAY_MS, value: 4 }] }]);
    s.flushDue(true);
    expect((await s.readRaw("t", "gauge", "old", all)).values).toEqual([4, 2, 3]);
    s.enforceRetention();
    expect(s.stats().chunks).toBe(3);
    clock = NOW + 5 * DAY_MS;
    s.enforceRetention();
    // Left: the new chunk (written now, 7 days) and the 1-day-old legacy one (expires at its timestamp + 7 days);
    // the 3-day-old legacy chunk expired at NOW + 4 days.
    expect((await s.readRaw("t", "gauge", "old", all)).values).toEqual([4, 3]);
    expect(s.stats().chunks).toBe(2);
    await s.close();
    const reopened = (await open(d, { now: () => clock })).s;
    expect((await reopened.readRaw("t", "gauge", "old", all)).values).toEqual([4, 3]);
    const version = new Database(join(d, "metrics.db"), { readonly: true });
    expect((version.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(5);
    version.close();
  });

  it("never shows one tenant's metrics or points to another", async () => {
    const { s } = await open();
    await s.write("a", [{ type: "gauge", id: "g", points: [{ timestamp: NOW, value: 1 }] }]);
    await s.write("b", [{ type: "gauge", id: "g", points: [{ timestamp: NOW, value: 2 }] }]);
    expect((await s.readRaw("a", "gauge", "g", all)).values).toEqual([1]);
    expect((await s.readRaw("b", "gauge", "g", all)).values).toEqual([2]);
    expect((await s.findMetrics("a")).map((m) => m.tenantId)).toEqual(["a"]);
    expect(await s.getMetric("c", "gauge", "g")).toBeUndefined();
  });

  it("keeps availability as up/down/unknown and definitions with tags across restarts", async () => {
    const { s, d } = await open();
    await s.createMetric({ tenantId: "t", type: "availability", id: "a", tags: { host: "x" } }, false);
    expect(await s.createMetric({ tenantId: "t", type: "availability", id: "a" }, false)).toBe("exists");
    await s.write("t", [{ type: "availability", id: "a", points: ["up", "down", "unknown"].map((v, i) => ({ timestamp: NOW + i, value: v })) }]);
    await s.close();
    const again = (await open(d)).s;
    expect((await again.readRaw("t", "availability", "a", all)).values).toEqual(["up", "down", "unknown"]);
    expect((await again.getMetric("t", "availability", "a"))?.tags).toEqual({ host: "x" });
    // The points came back from the log (a clean stop leaves the heads there).
    expect(again.stats().logBatches).toBe(1);
  });

  it("keeps a writer's frozen tags as they are, and changes, deletes and reopens them as any others", async () => {
    const { s, d } = await open();
    const tags = Object.freeze({ job: "node", instance: "a:9100", __name__: "up" });
    await s.ensureTags("t", [{ type: "gauge", id: "up{a}", tags }]);
    await s.ensureTags("t", [{ type: "gauge", id: "up{b}", tags }]);
    expect((await s.getMetric("t", "gauge", "up{a}"))?.tags).toEqual({ job: "node", instance: "a:9100", __name__: "up" });
    await s.updateTags("t", "gauge", "up{a}", { env: "prod" });
    expect(await s.deleteTags("t", "gauge", "up{b}", ["job"])).toBe(true);
    // The writer's object is untouched; each series has what was asked of it.
    expect(tags).toEqual({ job: "node", instance: "a:9100", __name__: "up" });
    expect((await s.getMetric("t", "gauge", "up{a}"))?.tags).toEqual({ job: "node", instance: "a:9100", __name__: "up", env: "prod" });
    expect((await s.getMetric("t", "gauge", "up{b}"))?.tags).toEqual({ instance: "a:9100", __name__: "up" });
    // The writer sends the same labels again: the series takes them back.
    await s.ensureTags("t", [{ type: "gauge", id: "up{b}", tags }]);
    expect((await s.getMetric("t", "gauge", "up{b}"))?.tags).toEqual({ job: "node", instance: "a:9100", __name__: "up" });
    await s.close();
    const again = (await open(d)).s;
    expect((await again.getMetric("t", "gauge", "up{a}"))?.tags).toEqual({ job: "node", instance: "a:9100", __name__: "up", env: "prod" });
    expect((await again.getMetric("t", "gauge", "up{b}"))?.tags).toEqual({ job: "node", instance: "a:9100", __name__: "up" });
  });

  it("after a restart, a series given equal frozen tags keeps that one object instead of its copy read from the database", async () => {
    const { s, d } = await open();
    await s.ensureTags("t", [{ type: "gauge", id: "up{a}", tags: { job: "node", __name__: "up" } }]);
    await s.close();
    const again = (await open(d)).s;
    const meta = () => (again as unknown as { s: { find(t: string, ty: string, id: string): { tags?: object } } }).s.find("t", "gauge", "up{a}")!;
    const read = meta().tags;
    const tags = Object.freeze({ __name__: "up", job: "node" });
    await again.ensureTags("t", [{ type: "gauge", id: "up{a}", tags }]);
    expect(meta().tags).toBe(tags);
    expect(meta().tags).not.toBe(read);
    // Not equal: stored as given, not adopted before.
    const other = Object.freeze({ __name__: "up", job: "other" });
    await again.ensureTags("t", [{ type: "gauge", id: "up{a}", tags: other }]);
    expect((await again.getMetric("t", "gauge", "up{a}"))?.tags).toEqual({ __name__: "up", job: "other" });
    await again.close();
    expect((await (await open(d)).s.getMetric("t", "gauge", "up{a}"))?.tags).toEqual({ __name__: "up", job: "other" });
  });
});

describe("decoded-chunk cache", () => {
  it("serves repeated reads and still sees later writes and retention", async () => {
    const { s } = await open();
    await s.write("t", [{ type: "gauge", id: "c", points: pts(10, NOW - 10_000, 1000, (i) => i) }]);
    s.flushDue(true);
    const first = await s.readRaw("t", "gauge", "c", all);
    expect(first.values).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // A later overwrite lands in a new chunk and wins over the cached one.
    await s.write("t", [{ type: "gauge", id: "c", points: [{ timestamp: NOW - 10_000, value: 100 }] }]);
    s.flushDue(true);
    expect((await s.readRaw("t", "gauge", "c", all)).values[0]).toBe(100);
    // A deleted metric's cached chunks are never served to a new metric of the same name.
    expect(await s.deleteMetric("t", "gauge", "c")).toBe(true);
    await s.write("t", [{ type: "gauge", id: "c", points: [{ timestamp: NOW - 5000, value: -1 }] }]);
    s.flushDue(true);
    expect((await s.readRaw("t", "gauge", "c", all)).values).toEqual([-1]);
  });
});

describe("reads of recent ranges skip the chunk index", () => {
  it("still find every point: after flushes, out-of-order writes older than a chunk, and a restart", async () => {
    const { s, d } = await open();
    const t0 = NOW - 60_000;
    const write = (ts: number[], v: number) => s.write("t", [{ type: "gauge", id: "g", points: ts.map((timestamp) => ({ timestamp, value: v })) }]);
    const read = async (start: number) => (await s.readRaw("t", "gauge", "g", { start, end: NOW + 1, order: "asc" })).ts;
    await write([t0, t0 + 10_000], 1);
    // Known, then moved by a flush; the recent read sees the new head and the new chunk.
    expect(await read(t0 + 5000)).toEqual([t0 + 10_000]);
    s.flushDue(true);
    await write([t0 + 20_000], 2);
    expect(await read(t0 + 5000)).toEqual([t0 + 10_000, t0 + 20_000]);
    expect(await read(t0 + 15_000)).toEqual([t0 + 20_000]);
    // A late point older than the newest chunk, flushed into a chunk of its own.
    await write([t0 + 5000], 3);
    s.flushDue(true);
    expect(await read(t0)).toEqual([t0, t0 + 5000, t0 + 10_000, t0 + 20_000]);
    expect(await read(t0 + 15_000)).toEqual([t0 + 20_000]);
    expect(await read(t0 + 25_000)).toEqual([]);
    await s.close();
    // After a restart the mark is unknown until read from the table.
    const again = (await open(d)).s;
    await again.write("t", [{ type: "gauge", id: "g", points: [{ timestamp: t0 + 30_000, value: 4 }] }]);
    expect((await again.readRaw("t", "gauge", "g", { start: t0 + 15_000, end: NOW + 1, order: "asc" })).ts).toEqual([t0 + 20_000, t0 + 30_000]);
    again.flushDue(true);
    expect((await again.readRaw("t", "gauge", "g", { start: t0 + 25_000, end: NOW + 1, order: "asc" })).ts).toEqual([t0 + 30_000]);
  });
});
