/**
 * Synchronous FULL with the log's sync in another thread (sqlite/wal-sync.ts, issue 28): a write
 * is answered, and its points readable, only once a sync that started after its commit has
 * finished; commits made meanwhile share the next sync; a failed sync refuses the writes it
 * covered (a storage failure), and the log keeps their points.
 */
import { fsync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openSqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { storageFailure } from "../../../src/sqlite/storage-failure.ts";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const stores = sqliteMetricsStoresPerTest("outpost-wal-sync-");
const T0 = Date.now() - 3_600_000;
const all = { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" as const };
const point = (i: number) => [{ timestamp: T0 + i * 1000, value: i }];

/** A sync held back until released, as a slow disk holds it; `fail` makes the next ones fail. */
function heldSync() {
  const held: (() => void)[] = [];
  let fail = false;
  return {
    started: () => held.length,
    release: () => held.shift()?.(),
    failNext: () => {
      fail = true;
    },
    sync: (fd: number, done: (e: Error | null) => void) => {
      const f = fail;
      held.push(() => (f ? done(Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" })) : fsync(fd, done)));
    },
  };
}

const settled = async <T>(p: Promise<T>) => {
  let state = "pending";
  p.then(
    () => (state = "resolved"),
    () => (state = "rejected"),
  );
  await new Promise((r) => setTimeout(r, 20));
  return state;
};

describe("the log synced in another thread (synchronous FULL)", () => {
  it("answers a write, and shows its points, only after the sync that follows its commit", async () => {
    const h = heldSync();
    const store = await stores.open({ synchronous: "FULL", syncLog: h.sync });
    const w = store.write("t", [{ type: "gauge", id: "g", points: point(1) }]);
    expect(await settled(w)).toBe("pending");
    expect(h.started()).toBe(1);
    expect((await store.readRaw("t", "gauge", "g", all)).ts).toEqual([]);
    h.release();
    await w;
    expect((await store.readRaw("t", "gauge", "g", all)).values).toEqual([1]);
  });

  it("has the commits made while a sync runs share the next one, answered in commit order", async () => {
    const h = heldSync();
    const store = await stores.open({ synchronous: "FULL", syncLog: h.sync });
    const order: number[] = [];
    const first = store.write("t", [{ type: "gauge", id: "g", points: point(1) }]).then(() => order.push(1));
    await settled(first);
    // Two more commits (two event-loop turns) while the first sync is held.
    const second = store.write("t", [{ type: "gauge", id: "g", points: point(2) }]).then(() => order.push(2));
    await new Promise((r) => setImmediate(r));
    const third = store.write("t", [{ type: "gauge", id: "h", points: point(3) }]).then(() => order.push(3));
    await new Promise((r) => setImmediate(r));
    expect(h.started()).toBe(1);
    h.release();
    await first;
    expect(await settled(second)).toBe("pending");
    expect(h.started()).toBe(1);
    h.release();
    await Promise.all([second, third]);
    expect(order).toEqual([1, 2, 3]);
    expect((await store.readRaw("t", "gauge", "g", all)).values).toEqual([1, 2]);
  });

  it("refuses the writes of a failed sync as a storage failure; their points are kept and survive a restart", async () => {
    const h = heldSync();
    const store = await stores.open({ synchronous: "FULL", syncLog: h.sync });
    h.failNext();
    const w = store.write("t", [{ type: "gauge", id: "g", points: point(1) }]);
    await settled(w);
    h.release();
    const err = await w.catch((e) => e);
    expect(storageFailure(err)).toBe("io");
    // Committed all the same: readable, and in the log (a crash now replays it).
    expect((await store.readRaw("t", "gauge", "g", all)).values).toEqual([1]);
    // No close(): a crash; a second store on the same files replays the log.
    const replayed = await openSqliteMetricsStore({ dataDir: stores.dir, synchronous: "NORMAL" });
    try {
      expect((await replayed.readRaw("t", "gauge", "g", all)).values).toEqual([1]);
    } finally {
      await replayed.close();
    }
  });

  it("waits for definitions to be on disk before answering, and keeps what was waiting when closed", async () => {
    const h = heldSync();
    const store = await stores.open({ synchronous: "FULL", syncLog: h.sync });
    const created = store.createMetric({ tenantId: "t", type: "gauge", id: "d" }, false);
    expect(await settled(created)).toBe("pending");
    h.release();
    await created;
    const w = store.write("t", [{ type: "gauge", id: "d", points: point(5) }]);
    await settled(w);
    const closing = store.close();
    h.release();
    await closing;
    await w;
    const again = await openSqliteMetricsStore({ dataDir: stores.dir, synchronous: "NORMAL" });
    try {
      expect((await again.readRaw("t", "gauge", "d", all)).values).toEqual([5]);
      // Applied before the close, left in the log by it, rebuilt from it.
      expect(again.stats().logBatches).toBe(1);
    } finally {
      await again.close();
    }
  });
});
