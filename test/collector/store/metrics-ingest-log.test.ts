/**
 * The metrics store's ingest log in segment files (collector/store/metrics/sqlite/ingest-log.ts,
 * issue 28): records read back as written across segments, reading stops at a torn or damaged
 * record, a failed append leaves nothing behind, segments are deleted only once the flush that
 * made them useless is on disk, and sequences go on across restarts.
 */
import { closeSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fullGC } from "bun:jsc";
import { afterEach, describe, expect, it } from "vitest";
import { IngestLog } from "../../../collector/store/metrics/sqlite/ingest-log.ts";
import { openSqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { storageFailure } from "../../../src/sqlite/storage-failure.ts";
import { SmallDisk } from "../../helpers/full-disk.ts";
import { ALL_ASC, gaugeWrites, sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const stores = sqliteMetricsStoresPerTest("outpost-ingest-log-");
const disks: SmallDisk[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const d of disks.splice(0)) d.dispose();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "outpost-ingest-log-"));
  dirs.push(d);
  return d;
};

const body = (i: number, size = 100) => Uint8Array.from({ length: size }, (_, k) => (i * 31 + k) & 0xff);
const segments = (dir: string) => readdirSync(join(dir, "metrics-log")).sort();
const readAll = (log: IngestLog, minNext = 1) => [...log.open(minNext)].map((r) => ({ seq: r.seq, body: Array.from(r.body) }));
/** Flushes taken as on disk at once; deleted segments' descriptors closed. */
const HOOKS = { durable: () => Promise.resolve(), closeFd: closeSync };
const T0 = Date.now() - 3_600_000;
const all = ALL_ASC;
const gauge = gaugeWrites(T0);

describe("the ingest log's segment files", () => {
  it("reads every record back in order, across segments, and numbers on after them", () => {
    const dir = tempDir();
    const log = new IngestLog(dir, "FULL", HOOKS, 1000);
    expect(readAll(log, 7)).toEqual([]);
    expect(() => new IngestLog(tempDir(), "FULL", HOOKS).appendGroup(1, () => body(0))).toThrow(/not open/);
    const seqs: number[] = [];
    for (let i = 0; i < 30; i++) seqs.push(...log.appendGroup(2, (k) => body(2 * i + k)));
    expect(seqs).toEqual(Array.from({ length: 60 }, (_, i) => 7 + i));
    log.close();
    // 60 records of 124 bytes in segments of 1,000: several files, each named by its first record.
    const names = segments(dir);
    expect(names.length).toBeGreaterThan(5);
    expect(names[0]).toBe("0000000000000007.log");
    const again = new IngestLog(dir, "FULL", HOOKS, 1000);
    const read = readAll(again);
    expect(read.map((r) => r.seq)).toEqual(seqs);
    expect(read.map((r) => r.body)).toEqual(seqs.map((_, i) => Array.from(body(i))));
    expect(again.nextSeq).toBe(67);
    expect(again.records).toBe(60);
    again.close();
  });

  it("stops reading a segment at a record cut short, skips a damaged one, and appends in a new segment", () => {
    const dir = tempDir();
    const log = new IngestLog(dir, "FULL", HOOKS);
    readAll(log);
    log.appendGroup(3, (k) => body(k));
    log.close();
    const [name] = segments(dir);
    const path = join(dir, "metrics-log", name!);
    // A crash in the middle of the fourth record: its header and half its body reached the
    // disk, into the zeros written ahead; and the same torn record at the end of a file.
    const whole = readFileSync(path);
    const torn = Buffer.concat([whole.subarray(0, 3 * 124), whole.subarray(0, 24 + 50)]);
    writeFileSync(path, Buffer.concat([torn, whole.subarray(torn.length)]));
    expect(statSync(path).size).toBe(whole.length);
    const a = new IngestLog(dir, "FULL", HOOKS);
    expect(readAll(a).map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(a.appendGroup(1, () => body(9))).toEqual([4]);
    a.close();
    expect(segments(dir)).toEqual([name, "0000000000000004.log"]);
    // The torn fourth record was no damage: nothing whole follows it.
    expect(a.damaged).toBe(0);
    writeFileSync(path, torn);
    const a2 = new IngestLog(dir, "FULL", HOOKS);
    expect(readAll(a2).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(a2.damaged).toBe(0);
    a2.close();
    // One bit flipped in the second record's body (a bad sector): that record is skipped, the
    // third, acknowledged after it, is still read.
    const bytes = readFileSync(path);
    bytes[124 + 24 + 10]! ^= 1;
    writeFileSync(path, bytes);
    const b = new IngestLog(dir, "FULL", HOOKS);
    expect(readAll(b).map((r) => r.seq)).toEqual([1, 3, 4]);
    expect(b.damaged).toBe(1);
    b.close();
  });

  it("deletes a segment only once the flush that emptied it is on disk, and never the active one", async () => {
    const dir = tempDir();
    let done!: () => void;
    let durable = new Promise<void>((r) => (done = r));
    const closed: number[] = [];
    const log = new IngestLog(dir, "FULL", { durable: () => durable, closeFd: (fd) => closed.push(fd) }, 200);
    readAll(log);
    for (let i = 0; i < 6; i++) log.appendGroup(1, () => body(i));
    const before = segments(dir);
    expect(before).toHaveLength(3);
    log.dropBefore(5);
    expect(log.records).toBe(2);
    await new Promise((r) => setTimeout(r, 20));
    expect(segments(dir)).toEqual(before);
    done();
    await durable;
    await new Promise((r) => setTimeout(r, 0));
    // Two records of 124 bytes fill a segment: 1–4 are in the first two, 5 and 6 in the active one.
    expect(segments(dir)).toEqual(before.slice(2));
    expect(closed).toHaveLength(2);
    durable = Promise.resolve();
    log.dropBefore(100);
    await new Promise((r) => setTimeout(r, 0));
    expect(segments(dir)).toEqual(before.slice(2));
    log.close();
  });

  it("writes zeros ahead of the appends, and reads up to them, not into them", () => {
    const dir = tempDir();
    const log = new IngestLog(dir, "FULL", HOOKS);
    readAll(log);
    log.appendGroup(2, (k) => body(k));
    const path = join(dir, "metrics-log", "0000000000000001.log");
    // Two records of 124 bytes, in a megabyte written ahead: the space they go into is allocated.
    const bytes = readFileSync(path);
    expect(bytes.length).toBe(1024 * 1024);
    expect(bytes.subarray(248).every((b) => b === 0)).toBe(true);
    log.close();
    const again = new IngestLog(dir, "FULL", HOOKS);
    expect(readAll(again).map((r) => r.seq)).toEqual([1, 2]);
    expect(again.damaged).toBe(0);
    again.close();
  });

  it("takes appends into its prepared space on a full disk, refuses one beyond it as a storage failure, and leaves nothing of it", () => {
    const disk = new SmallDisk(4);
    disks.push(disk);
    const log = new IngestLog(disk.dir, "FULL", HOOKS);
    readAll(log);
    log.appendGroup(1, () => body(1, 1000));
    const path = join(disk.dir, "metrics-log", "0000000000000001.log");
    disk.fill();
    // Within the megabyte written ahead: no new space needed.
    expect(log.appendGroup(1, () => body(2, 200_000))).toEqual([2]);
    const records = 24 + 1000 + 24 + 200_000;
    let err: unknown;
    try {
      log.appendGroup(3, (k) => body(k, 400_000));
    } catch (e) {
      err = e;
    }
    expect(storageFailure(err)).toBe("full");
    // Cut off after the records kept, the zeros too: no part of the refused group is left.
    expect(statSync(path).size).toBe(records);
    expect(log.records).toBe(2);
    disk.free();
    expect(log.appendGroup(1, () => body(3, 1000))).toEqual([3]);
    log.close();
    const again = new IngestLog(disk.dir, "FULL", HOOKS);
    expect(readAll(again).map((r) => r.seq)).toEqual([1, 2, 3]);
    again.close();
  });
});

describe("the metrics store on its ingest log", () => {
  it("replays every acknowledged write after a crash, across segments, and numbers on after a clean stop", async () => {
    const opts = { synchronous: "FULL" as const, maintenanceIntervalMs: 3_600_000, logSegmentBytes: 1024 };
    const a = await stores.open(opts);
    for (let i = 0; i < 20; i++) await a.write("t", [gauge("g", i * 10, 10), gauge(`h${i % 3}`, i, 1)]);
    expect(segments(stores.dir).length).toBeGreaterThan(2);
    // A crash: no close. A second store on the same files replays the log.
    const b = await openSqliteMetricsStore({ dataDir: stores.dir, ...opts });
    expect((await b.readRaw("t", "gauge", "g", all)).values).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect((await b.readRaw("t", "gauge", "h1", all)).values).toEqual([1, 4, 7, 10, 13, 16, 19]);
    await b.close();
    // A clean stop leaves the heads in the log: the next open rebuilds them.
    expect(segments(stores.dir).length).toBeGreaterThan(2);
    const b2 = await openSqliteMetricsStore({ dataDir: stores.dir, ...opts, sealOnClose: true });
    expect(b2.stats().logBatches).toBe(20);
    expect((await b2.readRaw("t", "gauge", "g", all)).values).toEqual(Array.from({ length: 200 }, (_, i) => i));
    await b2.close();
    // A clean stop sealing the heads (sealOnClose) left the points in chunks and one empty
    // segment, which keeps the numbering.
    expect(segments(stores.dir)).toHaveLength(1);
    expect(statSync(join(stores.dir, "metrics-log", segments(stores.dir)[0]!)).size).toBe(0);
    const c = await openSqliteMetricsStore({ dataDir: stores.dir, ...opts });
    expect(c.stats().logBatches).toBe(0);
    await c.write("t", [gauge("g", 200, 5)]);
    // Another crash: the write after the clean stop is replayed, not taken for one already flushed.
    const d = await openSqliteMetricsStore({ dataDir: stores.dir, ...opts });
    try {
      expect((await d.readRaw("t", "gauge", "g", all)).values).toEqual(Array.from({ length: 205 }, (_, i) => i));
    } finally {
      await d.close();
    }
  });

  it("rebuilds the heads a clean stop left in the log with their age: sealed when they would have been had it run on", async () => {
    let clock = Math.floor(Date.now() / 1000) * 1000;
    const opts = { synchronous: "FULL" as const, maintenanceIntervalMs: 3_600_000, headMaxAgeMs: 60_000, now: () => clock };
    const a = await stores.open(opts);
    await a.write("t", [gauge("old", 0, 5)]);
    clock += 40_000;
    await a.write("t", [gauge("young", 0, 5)]);
    await a.close();
    // 30 s later: "old" arrived 70 s ago, "young" 30 s ago.
    clock += 30_000;
    const b = await openSqliteMetricsStore({ dataDir: stores.dir, ...opts });
    try {
      expect(b.stats()).toMatchObject({ headPoints: 10, logBatches: 2, chunks: 0 });
      b.flushDue();
      expect(b.stats()).toMatchObject({ headPoints: 5, chunks: 1 });
      clock += 31_000;
      b.flushDue();
      expect(b.stats()).toMatchObject({ headPoints: 0, chunks: 2 });
      expect((await b.readRaw("t", "gauge", "old", all)).values).toEqual([0, 1, 2, 3, 4]);
      expect((await b.readRaw("t", "gauge", "young", all)).values).toEqual([0, 1, 2, 3, 4]);
    } finally {
      await b.close();
    }
  });

  it("keeps nothing of the log's files in memory after a replay", async () => {
    const opts = { synchronous: "NORMAL" as const, maintenanceIntervalMs: 3_600_000 };
    const a = await stores.open(opts);
    // 600,000 points of 20,000 series in 30 bodies: about 14 MB of log, small heads.
    for (let p = 0; p < 30; p++) await a.write("t", Array.from({ length: 20_000 }, (_, s) => gauge(`m${s}`, p, 1)));
    await a.close();
    fullGC();
    const before = process.memoryUsage().arrayBuffers;
    const b = await openSqliteMetricsStore({ dataDir: stores.dir, ...opts });
    try {
      expect(b.stats()).toMatchObject({ headPoints: 600_000, logBatches: 30 });
      fullGC();
      // The CBOR decoder held a view of the last body, and with it the whole segment file.
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(4 * 1024 * 1024);
    } finally {
      await b.close();
    }
  });

  it("never gives a deleted series' sid to a new one while the log names it: a replay puts no point in the wrong series", async () => {
    const opts = { synchronous: "FULL" as const, maintenanceIntervalMs: 3_600_000 };
    const a = await stores.open(opts);
    await a.write("t", [gauge("kept", 0, 3), gauge("gone", 0, 3)]);
    expect(await a.deleteMetric("t", "gauge", "gone")).toBe(true);
    await a.write("t", [gauge("new", 100, 2)]);
    // A crash: no close. The log still holds "gone"'s batch when it is replayed.
    const b = await openSqliteMetricsStore({ dataDir: stores.dir, ...opts });
    try {
      expect((await b.readRaw("t", "gauge", "new", all)).values).toEqual([100, 101]);
      expect((await b.readRaw("t", "gauge", "kept", all)).values).toEqual([0, 1, 2]);
      await b.write("t", [gauge("newer", 200, 1)]);
      const c = await openSqliteMetricsStore({ dataDir: stores.dir, ...opts });
      try {
        expect((await c.readRaw("t", "gauge", "newer", all)).values).toEqual([200]);
        expect((await c.readRaw("t", "gauge", "new", all)).values).toEqual([100, 101]);
      } finally {
        await c.close();
      }
    } finally {
      await b.close();
    }
  });

  it("deletes the segments the flushes emptied while writes go on", async () => {
    const s = await stores.open({ synchronous: "FULL", maintenanceIntervalMs: 3_600_000, logSegmentBytes: 2048 });
    for (let i = 0; i < 40; i++) {
      await s.write("t", [gauge("g", i * 10, 10)]);
      if (i % 10 === 9) s.flushDue(true);
    }
    await new Promise((r) => setTimeout(r, 50));
    // Every batch is in chunks: only the active segment is left.
    expect(segments(stores.dir)).toHaveLength(1);
    expect(s.stats()).toMatchObject({ logBatches: 0, headPoints: 0 });
    expect((await s.readRaw("t", "gauge", "g", all)).values).toHaveLength(400);
  });

  it("refuses writes while the disk is full, loses none it acknowledged, and takes them again once space is back", async () => {
    const disk = new SmallDisk(8);
    disks.push(disk);
    const opts = { dataDir: disk.dir, synchronous: "FULL" as const, maintenanceIntervalMs: 3_600_000 };
    const s = await openSqliteMetricsStore(opts);
    // The series exist before: the refused write is refused by the log's append, not by SQLite.
    await s.write("t", [gauge("g", 0, 10), ...Array.from({ length: 20 }, (_, k) => gauge(`m${k}`, 0, 1))]);
    disk.fill();
    // More than the log's prepared megabyte (zeros written ahead take appends on a full disk).
    const big = Array.from({ length: 20 }, (_, k) => gauge(`m${k}`, 1, 20_000));
    const err = await s.write("t", [gauge("g", 10, 5), ...big]).catch((e) => e);
    expect(storageFailure(err)).toBe("full");
    expect((await s.readRaw("t", "gauge", "g", all)).values).toHaveLength(10);
    disk.free();
    await s.write("t", [gauge("g", 10, 5)]);
    // A crash: the acknowledged points and nothing of the refused write.
    const again = await openSqliteMetricsStore(opts);
    try {
      expect((await again.readRaw("t", "gauge", "g", all)).values).toEqual(Array.from({ length: 15 }, (_, i) => i));
      expect((await again.readRaw("t", "gauge", "m0", all)).values).toEqual([0]);
    } finally {
      await again.close();
      await s.close().catch(() => {});
    }
  });
});
