import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PointBuffer } from "../../agent/buffer/point-buffer.ts";
import { AgentStorage } from "../../agent/storage.ts";
import { createLogger } from "../../src/log/logger.ts";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { createEncoder } from "../../src/protocol/cbor.ts";
import { openDatabase } from "../../src/sqlite/open.ts";
import { storageFailure } from "../../src/sqlite/storage-failure.ts";
import { failStatements, SmallDisk } from "../helpers/full-disk.ts";
import { waitFor } from "../helpers/ports.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const gauge = (id: string, from: number, n: number): MetricWrite => ({ type: "gauge", id, points: Array.from({ length: n }, (_, i) => ({ timestamp: from + i, value: i })) });

function open(dir: string, storage?: AgentStorage) {
  const db = openDatabase(join(dir, "buffer.db"), { synchronous: "NORMAL" });
  storage?.register("buffer", db);
  const b = new PointBuffer(db, { tenant: "t", feed: "f" }, { maxBytes: 1e9, maxAgeMs: 3_600_000, chunkPoints: 500 }, createEncoder(), { writeFailed: storage?.failed("buffer") }, Date.now, 1);
  cleanups.push(() => b.close());
  return b;
}

/** Lets the buffer's 1 ms group timer commit what is pending. */
const settle = () => Bun.sleep(20);

describe("agent buffer when commits fail", () => {
  it("commits removals of acknowledged chunks even while appends fail", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-buffer-fail-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const b = open(dir);
    await b.append([gauge("a", 0, 1000)]);
    const span = b.read(0, Number.MAX_SAFE_INTEGER, 1000)!;
    const release = failStatements(join(dir, "buffer.db"), "chunks");
    const refused = b.append([gauge("a", 1000, 10)]);
    b.remove(span.lo, span.hi);
    await expect(refused).rejects.toThrow(/injected failure/);
    await settle();
    expect(b.depth.points).toBe(0);
    expect(b.read(0, Number.MAX_SAFE_INTEGER, 1000)).toBeUndefined();
    release();
  });

  it("keeps removals that fail and commits them by itself once the database takes writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-buffer-fail-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const b = open(dir);
    await b.append([gauge("a", 0, 1000)]);
    const span = b.read(0, Number.MAX_SAFE_INTEGER, 1000)!;
    const release = failStatements(join(dir, "buffer.db"), "chunks", "DELETE");
    b.remove(span.lo, span.hi);
    await settle();
    expect(b.pendingRemovals).toBe(1);
    expect(b.depth.points).toBe(1000);
    release();
    await waitFor("the retried removal", () => (b.depth.points === 0 ? true : undefined), 5000);
    expect(b.read(0, Number.MAX_SAFE_INTEGER, 1000)).toBeUndefined();
  });
});

describe("agent buffer on a full disk", () => {
  it("releases its space reserve to delete acknowledged points, logs the condition once, and recovers by itself", async () => {
    const disk = new SmallDisk(16);
    cleanups.push(() => disk.dispose());
    const lines: string[] = [];
    const storage = new AgentStorage(disk.dir, 2 * 1024 * 1024, createLogger("info", "agent", (l) => lines.push(l)));
    cleanups.push(() => storage.close());
    const b = open(disk.dir, storage);
    expect(storage.reserve.held).toBe(true);
    // The collector is away: points pile up, then the disk fills (another program's files).
    for (let i = 0; i < 20; i++) await b.append([gauge(`early${i}`, 0, 500)]);
    disk.fill();
    // Fill the buffer until the disk refuses an append.
    let refused: unknown;
    for (let i = 0; i < 2000 && refused === undefined; i++) {
      await b.append([gauge(`m${i}`, i * 1000, 500)]).catch((e) => {
        refused = e;
      });
    }
    expect(storageFailure(refused)).toBe("full");
    expect(storage.health.failing).toBe("full");
    expect(storage.reserve.held).toBe(false);
    const buffered = b.depth.points;
    expect(buffered).toBeGreaterThan(0);
    // The collector acknowledges everything: every chunk can be deleted, on the full disk.
    for (let lo = 0, span = b.read(lo, Number.MAX_SAFE_INTEGER, 100_000); span; span = b.read(lo, Number.MAX_SAFE_INTEGER, 100_000)) {
      b.remove(span.lo, span.hi);
      lo = span.hi;
    }
    await waitFor("acknowledged points deleted", () => (b.depth.points === 0 ? true : undefined), 5000);
    expect(b.pendingRemovals).toBe(0);
    // Appends fit again in the pages the deletes freed.
    await b.append([gauge("after", 0, 500)]);
    expect(lines.filter((l) => l.includes("storage is full"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("released the disk space reserve"))).toHaveLength(1);
    // Space returns: the reserve is written again and the condition ends.
    disk.free();
    await waitFor("storage condition cleared", () => (storage.health.failing === undefined ? true : undefined), 5000);
    expect(existsSync(storage.reserve.path)).toBe(true);
    expect(lines.filter((l) => l.includes("storage takes writes again"))).toHaveLength(1);
  });
});
