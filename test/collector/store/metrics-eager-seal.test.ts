/**
 * Heads about to outgrow the largest chunk are sealed right after the commit that filled them,
 * without waiting for the maintenance round (issue 16: under fast ingest a second of points
 * doubled the heads' arrays again); smaller heads stay in memory until then. Over the heads'
 * budget, the longest are sealed in slices, chosen once for all of them, each sealed once.
 */
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { describe, expect, it } from "vitest";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { sealAt } from "../../../collector/store/metrics/sqlite/writes.ts";
import { clearOfMidnight } from "../../helpers/clear-of-midnight.ts";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const CHUNK = 64;
const stores = sqliteMetricsStoresPerTest("outpost-seal-");
let store: SqliteMetricsStore;

const T0 = clearOfMidnight();
const tick = () => new Promise<void>((r) => setImmediate(r));

function chunkRows(): { sid: number; n: number }[] {
  const db = new Database(join(stores.dir, "metrics.db"), { readonly: true });
  try {
    return db.query("SELECT sid, n FROM chunks ORDER BY start_ts").all() as { sid: number; n: number }[];
  } finally {
    db.close();
  }
}

describe("eager sealing of full heads", () => {
  it("seals a head once it reaches sealAt points, in one chunk, before any maintenance round", async () => {
    store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkPoints: CHUNK });
    const limit = sealAt(CHUNK);
    expect(limit).toBeGreaterThan(CHUNK);
    expect(limit).toBeLessThan(2 * CHUNK);
    // Two points per write, as ingest batches bring a few points of each series.
    let written = 0;
    while (written + 2 < limit) {
      await store.write("t", [{ type: "gauge", id: "a", points: [0, 1].map((k) => ({ timestamp: T0 + (written + k) * 1000, value: written + k })) }]);
      written += 2;
      await tick();
    }
    expect(store.memory().headPoints).toBe(written);
    expect(chunkRows()).toEqual([]);
    await store.write("t", [{ type: "gauge", id: "a", points: [0, 1].map((k) => ({ timestamp: T0 + (written + k) * 1000, value: written + k })) }]);
    written += 2;
    await tick();
    await tick();
    expect(store.memory().headPoints).toBe(0);
    const rows = chunkRows();
    expect(rows.map((r) => r.n)).toEqual([written]);
    const back = await store.readRaw("t", "gauge", "a", { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" });
    expect(back.ts.length).toBe(written);
    expect(back.values).toEqual(Array.from({ length: written }, (_, i) => i));
  });

  it("keeps the heads within their budget when writes come faster than slices of the flush", async () => {
    const budget = 200_000;
    store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, maxHeadPoints: budget });
    // 100,000 points a write over 2,000 series (50 each: no head full), eight writes in flight as
    // an MQTT window keeps them: more than a slice of the flush (64 K points) comes in every turn.
    const series = 2000;
    const batch = (w: number) =>
      Array.from({ length: series }, (_, k) => ({ type: "gauge" as const, id: `s${k}`, points: Array.from({ length: 50 }, (_, i) => ({ timestamp: T0 + (w * 50 + i) * 1000, value: i })) }));
    const bodies = Array.from({ length: 40 }, (_, w) => batch(w));
    let most = 0;
    const inFlight: Promise<void>[] = [];
    for (const b of bodies) {
      inFlight.push(store.write("t", b).then(() => void (most = Math.max(most, store.memory().headPoints))));
      if (inFlight.length >= 8) await inFlight.shift();
    }
    await Promise.all(inFlight);
    // The writes in flight over the budget at most.
    expect(most).toBeLessThanOrEqual(budget + 8 * 100_000);
    const back = await store.readRaw("t", "gauge", "s1999", { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" });
    expect(back.ts.length).toBe(40 * 50);
  });

  it("seals the largest heads over the budget in slices, each once, down to half the budget; a restart finds every point once", async () => {
    const budget = 90_000;
    // A log segment a batch: the log is cut at the first batch a head still needs, a segment at a time.
    const opts = { synchronous: "NORMAL" as const, maintenanceIntervalMs: 3_600_000, maxHeadPoints: budget, logSegmentBytes: 1 };
    store = await stores.open(opts);
    const series = 2000;
    // Four batches of 500 series: heads start in different batches.
    const write = async (from: number, n: number) => {
      for (let b = 0; b < 4; b++) {
        await store.write(
          "t",
          Array.from({ length: series / 4 }, (_, j) => {
            const k = b * (series / 4) + j;
            return { type: "gauge" as const, id: `s${k}`, points: Array.from({ length: n }, (_, i) => ({ timestamp: T0 + (from + i) * 1000, value: k * 1000 + from + i })) };
          }),
        );
        // The slices run in the turns after the write, FLUSH_SLICE_POINTS (64 K) points each.
        for (let i = 0; i < 10; i++) await tick();
      }
    };
    // 100,000 points (50 a series), over the budget at the fourth batch: heads are sealed until
    // half the budget is left, each once.
    await write(0, 50);
    expect(store.memory().headPoints).toBe(budget / 2);
    let rows = chunkRows();
    expect(rows.length).toBe(1100);
    expect(new Set(rows.map((r) => r.sid)).size).toBe(1100);
    expect(rows.every((r) => r.n === 50)).toBe(true);
    // 40 more each: over the budget again; nothing lost, nothing sealed twice.
    await write(50, 40);
    const held = store.memory().headPoints;
    expect(held).toBeLessThanOrEqual(budget);
    rows = chunkRows();
    expect(rows.reduce((a, r) => a + r.n, 0) + held).toBe(series * 90);
    // The log was cut before the first batch an unsealed head needs, no further: reopened, the
    // heads hold the same points, and every series reads its 90 once.
    const dataDir = stores.dir;
    // The emptied segments go once the database's log is synced, a moment after the flush.
    await new Promise((r) => setTimeout(r, 100));
    await store.close();
    store = await openSqliteMetricsStore({ dataDir, ...opts });
    try {
      expect(store.memory().headPoints).toBe(held);
      for (let k = 0; k < series; k++) {
        const back = await store.readRaw("t", "gauge", `s${k}`, { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" });
        expect(back.values).toEqual(Array.from({ length: 90 }, (_, i) => k * 1000 + i));
      }
    } finally {
      await store.close();
    }
  });

  it("seals a head once its first point is headMaxAgeMs old or it holds chunkPoints, however few rounds walked the heads before", async () => {
    let clock = Date.now();
    const maxAge = 60_000;
    store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkPoints: CHUNK, headMaxAgeMs: maxAge, now: () => clock });
    const point = (id: string, k: number) => ({ type: "gauge" as const, id, points: [{ timestamp: T0 + k * 1000, value: k }] });
    await store.write("t", [point("old", 0)]);
    // Rounds with nothing due, the store's clock moving on.
    for (let i = 0; i < 5; i++) {
      clock += 10_000;
      store.flushDue();
    }
    await store.write("t", [point("young", 0)]);
    expect(chunkRows()).toEqual([]);
    clock += maxAge - 50_000 - 1;
    store.flushDue();
    expect(chunkRows()).toEqual([]);
    // The old head's first point is maxAge old now; the young one's is not.
    clock += 1;
    store.flushDue();
    expect(chunkRows().map((r) => r.n)).toEqual([1]);
    expect(store.memory().headPoints).toBe(1);
    clock += 1000;
    store.flushDue();
    expect(store.memory().headPoints).toBe(1);
    // A head at chunkPoints (below sealAt: not sealed at once) goes at the next round.
    await store.write("t", [{ type: "gauge", id: "big", points: Array.from({ length: CHUNK }, (_, k) => ({ timestamp: T0 + k * 1000, value: k })) }]);
    await tick();
    await tick();
    expect(store.memory().headPoints).toBe(1 + CHUNK);
    store.flushDue();
    expect(chunkRows().map((r) => r.n).sort((a, b) => a - b)).toEqual([1, CHUNK]);
    expect(store.memory().headPoints).toBe(1);
  });

  it("leaves heads below the mark, of other series too, in memory", async () => {
    store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkPoints: CHUNK });
    const n = sealAt(CHUNK) - 1;
    await store.write("t", [
      { type: "gauge", id: "a", points: Array.from({ length: n }, (_, i) => ({ timestamp: T0 + i * 1000, value: i })) },
      { type: "gauge", id: "b", points: [{ timestamp: T0, value: 1 }] },
    ]);
    await tick();
    await tick();
    expect(store.memory().headPoints).toBe(n + 1);
    expect(chunkRows()).toEqual([]);
  });
});
