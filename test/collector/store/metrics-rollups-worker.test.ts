/**
 * The roller's steps in its worker thread (collector/metrics/rollup-offload.ts, as the collector
 * runs the SQLite store): the blocks it answers, written by the store, are byte for byte those
 * the store computes on its own thread, with the same marks; a worker that fails, dies, hangs or
 * cannot be loaded leaves the store to compute them; rollUp() taking the window while a request
 * is out drops that answer; and the store's background task rolls up through the worker. Also
 * the count of chunks awaiting the roller (its self-metrics), reused between scrapes, stays exact.
 */
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RollupOffload } from "../../../collector/metrics/rollup-offload.ts";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { AVAILABILITY_VALUES, DAY_MS, type MetricType } from "../../../src/metrics/model.ts";
import { DEFAULT_ROLLUP_TIERS, parseRollupTiers } from "../../../src/metrics/rollup/tiers.ts";

const TIERS = parseRollupTiers(DEFAULT_ROLLUP_TIERS);
const T0 = Math.floor(Date.now() / DAY_MS) * DAY_MS - 20 * DAY_MS;
const helper = (name: string) => new URL(`../../helpers/${name}`, import.meta.url);
/** The stores' clock: blocks hold their chunks' expiry, which counts from the seal. */
let clock = T0 + 21 * DAY_MS;

const dirs: string[] = [];
const stores: SqliteMetricsStore[] = [];
const offloads: RollupOffload[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) if (s.ready()) await s.close();
  for (const o of offloads.splice(0)) await o.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function open(o: { offload?: RollupOffload; maintenanceIntervalMs?: number } = {}): Promise<SqliteMetricsStore> {
  const dir = mkdtempSync(join(tmpdir(), "outpost-rollup-worker-"));
  dirs.push(dir);
  const s = await openSqliteMetricsStore({
    dataDir: dir,
    synchronous: "NORMAL",
    maintenanceIntervalMs: o.maintenanceIntervalMs ?? 3_600_000,
    rollupTiers: TIERS,
    rollupCompute: o.offload,
    chunkPoints: 256,
    now: () => clock,
  });
  stores.push(s);
  return s;
}

function offload(o: ConstructorParameters<typeof RollupOffload>[0] = {}): RollupOffload {
  const off = new RollupOffload({ retryMs: 0, ...o });
  offloads.push(off);
  return off;
}

const dbOf = (s: SqliteMetricsStore) => (s as unknown as { s: { db: Database } }).s.db;

/** What the tiers hold: every block's bytes (not when it was written) and every tier's mark. */
function tiers(s: SqliteMetricsStore) {
  const db = dbOf(s);
  return {
    blocks: db.query("SELECT sid, step, block_start, hex(body) AS body FROM rollups ORDER BY sid, step, block_start").all(),
    marks: db.query("SELECT step, mark FROM rollup_progress ORDER BY step").all(),
  };
}

const TYPES: MetricType[] = ["gauge", "counter", "availability", "gauge", "counter", "string"];

/**
 * Write `round` of a few series of each kind: a minute apart over days, counters with resets,
 * NaN staleness markers; from the second round on, late points rewriting earlier stretches.
 */
async function writeRound(s: SqliteMetricsStore, round: number): Promise<void> {
  for (const [k, type] of TYPES.entries()) {
    const from = round * 900;
    const points = Array.from({ length: 900 + k * 37 }, (_, i) => {
      const n = from + i;
      const timestamp = T0 + n * 60_000 + k * 1000;
      const value: number | string =
        type === "availability" ? AVAILABILITY_VALUES[(n >> 6) % 4]! : type === "string" ? `s${n % 7}` : type === "counter" ? (n % 500) * 3 + k : n % 97 === 0 ? Number.NaN : Math.sin(n / 50) * 100 + k;
      return { timestamp, value };
    });
    if (round > 0) points.push(...points.slice(0, 40).map((p) => ({ timestamp: p.timestamp - 450 * 60_000, value: typeof p.value === "number" ? p.value + 1 : p.value })));
    await s.write("t", [{ type, id: `m${k}`, points }]);
  }
}

/** Writes the rounds into each store, sealing and rolling up after each (`rollUp` per store). */
async function load(pairs: [SqliteMetricsStore, () => Promise<void> | void][], rounds = 3, first = 0): Promise<void> {
  for (let r = first; r < first + rounds; r++) {
    for (const [s, rollUp] of pairs) {
      await writeRound(s, r);
      s.flushDue(true);
      await rollUp();
    }
  }
}

describe("the roller's worker thread", () => {
  it("answers the blocks and marks the store computes on its own thread", async () => {
    const off = offload();
    const here = await open();
    const there = await open({ offload: off });
    await load([
      [here, () => here.rollUp()],
      [there, () => there.catchUpRollups()],
    ]);
    const want = tiers(here);
    // Every series but the string one, in each of the three tiers.
    expect(new Set((want.blocks as { sid: number; step: number }[]).map((b) => `${b.sid}:${b.step}`)).size).toBe(5 * TIERS.length);
    expect(tiers(there)).toEqual(want);
    expect(off.answered).toBeGreaterThan(0);
    expect(off.lost).toBe(0);
    expect(there.rollups!.stats().pendingChunks).toBe(0);
  });

  it.each([
    ["exits at its message", "promql-worker-exits.ts", {}],
    ["throws on its message", "promql-worker-throws.ts", {}],
    ["never answers", "promql-worker-hangs.ts", { timeoutMs: 300 }],
    ["cannot be loaded", "no-such-worker.ts", {}],
  ])("one that %s: the store computes the steps itself, to the same tiers", async (_, script, o) => {
    const off = offload({ script: helper(script), ...o });
    const here = await open();
    const there = await open({ offload: off });
    await load([
      [here, () => here.rollUp()],
      [there, () => there.catchUpRollups()],
    ]);
    expect(tiers(there)).toEqual(tiers(here));
    expect(off.answered).toBe(0);
    expect(off.lost).toBeGreaterThanOrEqual(1);
  });

  it("rollUp() while a request is out: its answer is dropped, the tiers are those computed here", async () => {
    const off = offload();
    const here = await open();
    const there = await open({ offload: off });
    await load([
      [here, () => here.rollUp()],
      [
        there,
        async () => {
          const out = there.catchUpRollups();
          there.rollUp();
          await out;
        },
      ],
    ]);
    expect(tiers(there)).toEqual(tiers(here));
    expect(there.rollups!.stats().pendingChunks).toBe(0);
  });

  it("a metric deleted while its steps are out: none of its blocks is written, the other series' are", async () => {
    const off = offload();
    const here = await open();
    const there = await open({ offload: off });
    for (const s of [here, there]) {
      await writeRound(s, 0);
      s.flushDue(true);
    }
    const sid = (dbOf(there).query("SELECT sid FROM series WHERE metric = 'm0'").get() as { sid: number }).sid;
    const out = there.catchUpRollups();
    expect(await there.deleteMetric("t", "gauge", "m0")).toBe(true);
    await out;
    expect(off.answered).toBeGreaterThan(0);
    expect(dbOf(there).query("SELECT count(*) AS n FROM rollups WHERE sid = ?").get(sid)).toEqual({ n: 0 });
    // The same deletion on a store that rolls up on its own thread, after the fact: the same tiers.
    here.rollUp();
    expect(await here.deleteMetric("t", "gauge", "m0")).toBe(true);
    expect(tiers(there)).toEqual(tiers(here));
  });

  it("the count of chunks awaiting the roller is fresh after each seal and each roll-up, however soon it is asked again", async () => {
    const here = await open();
    await writeRound(here, 0);
    here.flushDue(true);
    const sealed = (dbOf(here).query("SELECT count(*) AS n FROM chunks").get() as { n: number }).n;
    expect(sealed).toBeGreaterThan(0);
    expect(here.rollups!.stats().pendingChunks).toBe(sealed);
    here.rollUp();
    expect(here.rollups!.stats().pendingChunks).toBe(0);
    await writeRound(here, 1);
    here.flushDue(true);
    const more = (dbOf(here).query("SELECT count(*) AS n FROM chunks").get() as { n: number }).n - sealed;
    expect(more).toBeGreaterThan(0);
    expect(here.rollups!.stats().pendingChunks).toBe(more);
  });

  it("closed after the store, it ends; the store opens again with the tiers it wrote", async () => {
    const off = offload();
    const there = await open({ offload: off });
    await load([[there, () => there.catchUpRollups()]], 2);
    const want = tiers(there);
    const answered = off.answered;
    expect(answered).toBeGreaterThan(0);
    await there.close();
    await off.close();
    // Its connection closed at its last message: not counted as a request answered.
    expect(off.answered).toBe(answered);
    const again = await openSqliteMetricsStore({ dataDir: dirs.at(-1)!, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, rollupTiers: TIERS, chunkPoints: 256, now: () => clock });
    stores.push(again);
    expect(tiers(again)).toEqual(want);
    expect(again.rollups!.stats().pendingChunks).toBe(0);
  });

  it("the store's background task rolls up through it", async () => {
    const off = offload();
    const here = await open();
    const there = await open({ offload: off, maintenanceIntervalMs: 20 });
    const start = clock;
    for (let r = 0; r < 2; r++) {
      // Each round sealed at the same time of both stores' clock.
      clock = start + r * DAY_MS;
      await load([[here, () => here.rollUp()]], 1, r);
      await writeRound(there, r);
      there.flushDue(true);
      // The background task's windows: until every sealed chunk is in the tiers.
      const deadline = Date.now() + 20_000;
      while (there.rollups!.stats().pendingChunks > 0 && Date.now() < deadline) {
        await Bun.sleep(20);
        // A window opens at most every few seconds of the store's time.
        clock += 10_000;
      }
    }
    expect(there.rollups!.stats().pendingChunks).toBe(0);
    expect(tiers(there)).toEqual(tiers(here));
    expect(off.answered).toBeGreaterThan(0);
  });
});
