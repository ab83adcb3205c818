/**
 * When the SQLite store's roller opens a window of sealed chunks (collector/store/metrics/sqlite/rollup-window-timing.ts):
 * while points keep coming in, once 30 s have passed and the chunks sealed since the last window
 * hold 1,024 points per series with chunks to roll up, or 10 minutes have passed; once ingest has
 * stopped, at the first round that saw no point come in, 2 s or more after the last window. The
 * store's open counts as a window opened (chunks a restart finds wait for the next one), and
 * after an open that replayed points, the first window waits 30 s even when quiet (a restart's
 * senders come back in bursts). A window
 * rolls up every chunk sealed before it opened, and queries read raw points where chunks are not
 * rolled up yet, so stats are the same either way.
 */
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { describe, expect, it } from "vitest";
import { UNROLLED_SQL } from "../../../collector/store/metrics/sqlite/rollup-statements.ts";
import { openSqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { WindowStarts } from "../../../collector/store/metrics/sqlite/rollup-window-starts.ts";
import type { SqliteRollups } from "../../../collector/store/metrics/sqlite/rollups.ts";
import { readNumericStats } from "../../../src/metrics/queries.ts";
import { DAY_MS } from "../../../src/metrics/model.ts";
import { DEFAULT_ROLLUP_TIERS, parseRollupTiers } from "../../../src/metrics/rollup/tiers.ts";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const SERIES = 20;
const T0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 2 * DAY_MS;
const stores = sqliteMetricsStoresPerTest("outpost-rollup-windows-");

async function setup() {
  let clock = Date.now();
  const store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, rollupTiers: parseRollupTiers(DEFAULT_ROLLUP_TIERS), now: () => clock });
  const roller = store.rollups as unknown as SqliteRollups;
  let next = 0;
  /** `n` points more of every series, one a second of their time (values i % 7), sealed at once when `seal`. */
  const write = async (n: number, seal: boolean) => {
    const at = next;
    next += n;
    await store.write(
      "t",
      Array.from({ length: SERIES }, (_, s) => ({ type: "gauge" as const, id: `g${s}`, points: Array.from({ length: n }, (_, k) => ({ timestamp: T0 + (at + k) * 1000, value: (at + k) % 7 })) })),
    );
    if (seal) store.flushDue(true);
  };
  const pending = () => roller.stats().pendingChunks;
  const tick = (ms: number) => (clock += ms);
  /** A seal of `n` points a series, one point more still coming in, `ms` later a round of the roller. */
  const sealThenRound = async (n: number, ms: number) => {
    await write(n, true);
    await write(1, false);
    tick(ms);
    roller.round(10_000);
  };
  return { store, roller, write, pending, tick, sealThenRound, written: () => next };
}

describe("the SQLite roller's windows", () => {
  it("waits for a step's worth of points per series while ingest goes on, then rolls up every chunk sealed", async () => {
    const { store, roller, write, pending, tick, sealThenRound, written } = await setup();
    // The store's open counts as a window: a seal right after it waits, as ingest goes on ...
    await write(100, true);
    roller.round(10_000);
    expect(pending()).toBe(SERIES);
    tick(20_000);
    await write(1, false);
    roller.round(10_000);
    expect(pending()).toBe(SERIES);
    // ... until a round sees no point come in.
    tick(2000);
    roller.round(10_000);
    expect(pending()).toBe(0);
    // 100 points a series a seal: ten seals are under 1,024 a series, whatever the time (under 10 minutes).
    for (let k = 1; k <= 10; k++) {
      await sealThenRound(100, 40_000);
      expect(pending()).toBe(k * SERIES);
    }
    // The eleventh brings the chunks sealed since the last window to 1,100 points a series.
    await sealThenRound(100, 40_000);
    expect(pending()).toBe(0);
    // Every point is in the tiers: a day's stats read from the daily tier equal those of the raw points.
    store.flushDue(true);
    roller.round(10_000, true);
    const buckets = { start: T0, step: DAY_MS, count: 1 };
    const stats = await readNumericStats(store, "t", "gauge", "g3", { buckets });
    expect(stats[0]).toMatchObject({ samples: written(), min: 0, max: 6 });
  });

  it("opens a window after 10 minutes of slow ingest, and 2 s after ingest stopped", async () => {
    const { roller, write, pending, tick, sealThenRound } = await setup();
    await write(10, true);
    tick(600_000);
    roller.round(10_000);
    expect(pending()).toBe(0);
    // A seal of 10 points a series every 80 s: far under 1,024 a series before 10 minutes.
    for (let k = 1; k <= 7; k++) {
      await sealThenRound(10, 80_000);
      expect(pending()).toBe(k * SERIES);
    }
    // 640 s since the last window.
    await sealThenRound(10, 80_000);
    expect(pending()).toBe(0);
    // Ingest stops: the last seal is rolled up by the first round that saw no point come in,
    // 2 s or more after the last window opened.
    await write(10, true);
    tick(1000);
    roller.round(10_000);
    expect(pending()).toBe(SERIES);
    roller.round(10_000);
    expect(pending()).toBe(SERIES);
    tick(1500);
    roller.round(10_000);
    expect(pending()).toBe(0);
  });

  it("after a restart, waits 30 s before a quiet window: a backlog that comes back in bursts is not joined by the roller", async () => {
    const { store } = await setup();
    let clock = Date.now();
    const opts = { synchronous: "NORMAL" as const, maintenanceIntervalMs: 3_600_000, rollupTiers: parseRollupTiers(DEFAULT_ROLLUP_TIERS), now: () => clock };
    let current = store;
    let at = 0;
    /** `n` points a second more of every series (of `count` series), sealed when `seal`. */
    const write = async (n: number, seal: boolean, count = SERIES) => {
      await current.write(
        "t",
        Array.from({ length: count }, (_, s) => ({ type: "gauge" as const, id: `g${s}`, points: Array.from({ length: n }, (_, k) => ({ timestamp: T0 + (at + k) * 1000, value: k })) })),
      );
      at += n;
      if (seal) current.flushDue(true);
    };
    try {
      for (const backlog of [true, false]) {
        await write(10, true);
        // Points left in the heads: the open's replay brings them back.
        await write(3, false);
        await current.close();
        current = await openSqliteMetricsStore({ dataDir: stores.dir, ...opts });
        const roller = current.rollups as unknown as SqliteRollups;
        expect(current.stats().headPoints).toBe(3 * SERIES);
        expect(roller.stats().pendingChunks).toBe(SERIES);
        // Quiet for 5 s after the open (the replay is not ingest): the code before rolled up at 2 s.
        for (let k = 1; k <= 5; k++) {
          clock += 1000;
          roller.round(10_000);
          expect(roller.stats().pendingChunks).toBe(SERIES);
        }
        if (backlog) {
          // The senders are back, for 20 s in bursts with pauses of a few seconds between, then
          // steadily for 20 s: the window waits as it does under ingest.
          for (let k = 0; k < 40; k++) {
            if (k >= 20 || k % 5 < 2) await write(1, false, 1);
            clock += 1000;
            roller.round(10_000);
            expect(roller.stats().pendingChunks).toBe(SERIES);
          }
          // They stop: the first quiet round rolls up.
          clock += 1000;
          roller.round(10_000);
          expect(roller.stats().pendingChunks).toBe(0);
        } else {
          // Nobody came: the window opens 30 s after the open.
          clock += 24_000;
          roller.round(10_000);
          expect(roller.stats().pendingChunks).toBe(SERIES);
          clock += 1000;
          roller.round(10_000);
          expect(roller.stats().pendingChunks).toBe(0);
        }
      }
    } finally {
      await current.close();
    }
  });

  it("finds the series with chunks to roll up by the chunks' ids after the mark, not by scanning every chunk stored", async () => {
    const { store, roller, write, pending, tick } = await setup();
    for (let k = 0; k < 5; k++) await write(100, true);
    tick(600_000);
    roller.round(10_000);
    await write(100, true);
    expect(pending()).toBe(SERIES);
    const db = new Database(join(stores.dir, "metrics.db"), { readonly: true });
    try {
      const plan = (db.query(`EXPLAIN QUERY PLAN ${UNROLLED_SQL}`).all() as { detail: string }[]).map((r) => r.detail);
      expect(plan[0]).toMatch(/^SEARCH c USING INTEGER PRIMARY KEY \(rowid>\?\)/);
      // What it finds: every series, its last seal's chunk.
      const mark = (db.query("SELECT min(mark) AS m FROM rollup_progress").get() as { m: number }).m;
      const rows = db.query(UNROLLED_SQL).values(mark) as number[][];
      expect(rows.length).toBe(SERIES);
      expect(rows.every((r) => r[3]! > mark)).toBe(true);
    } finally {
      db.close();
    }
    expect(store.ready()).toBe(true);
  });

  it("looks up each series' earliest chunk start in the window by sid", () => {
    const rows: [number, number][] = [
      [2, 1000],
      [5, -30],
      [9, 7e12],
      [40, 0],
    ];
    const starts = new WindowStarts(rows);
    for (const [sid, from] of rows) expect(starts.of(sid)).toBe(from);
    for (const sid of [0, 1, 3, 10, 41]) expect(starts.of(sid)).toBeUndefined();
    expect(new WindowStarts([]).of(1)).toBeUndefined();
  });
});
