/**
 * The heads' segments are reused from series to series once sealed (head-segments.ts, issue 28):
 * a reused segment must never show one series' (or tenant's) points in another's answer, neither
 * in later reads nor in answers given before the segment changed hands.
 */
import { describe, expect, it } from "vitest";
import { HeadSegments, MIN_SEGMENT, POOL_IDLE_MS } from "../../../collector/store/metrics/head-segments.ts";
import type { SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { sealAt } from "../../../collector/store/metrics/sqlite/writes.ts";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const stores = sqliteMetricsStoresPerTest("outpost-head-segments-");
const T0 = Date.now() - 6 * 3_600_000;
const tick = () => new Promise<void>((r) => setImmediate(r));
/** A value that says whose point it is. */
const pointValue = (tenant: number, series: number, i: number) => tenant * 1e6 + series * 1e4 + i;

async function fill(store: SqliteMetricsStore, tenant: number, series: number, from: number, to: number, batch = 50): Promise<void> {
  for (let a = from; a < to; a += batch) {
    const points = [];
    for (let i = a; i < Math.min(to, a + batch); i++) points.push({ timestamp: T0 + i * 1000, value: pointValue(tenant, series, i) });
    await store.write(`t${tenant}`, [{ type: "gauge", id: `s${series}`, points }]);
    await tick();
  }
}

async function expectOwn(store: SqliteMetricsStore, tenant: number, series: number, n: number): Promise<void> {
  const got = await store.readSeries(`t${tenant}`, "gauge", `s${series}`, 0, T0 + 10 * n * 1000);
  expect(got?.ts.length).toBe(n);
  for (let i = 0; i < n; i++) {
    expect(got!.ts[i]).toBe(T0 + i * 1000);
    expect(got!.values[i]).toBe(pointValue(tenant, series, i));
  }
}

describe("the heads' reused segments", () => {
  it("carry no point from one series or tenant to another, and earlier answers keep their points", async () => {
    const store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
    const full = sealAt(1024);
    // Tenant 1's series fill their heads to the seal mark; an answer is taken from the head first.
    await fill(store, 1, 0, 0, full - 100);
    const before = await store.readSeries("t1", "gauge", "s0", 0, T0 + 10 * full * 1000);
    const copy = { ts: Array.from(before!.ts), values: Array.from(before!.values) };
    await fill(store, 1, 0, full - 100, full + 10);
    await fill(store, 1, 1, 0, full + 10);
    // Sealed: their segments went back to the pool.
    expect(store.headSegments().pooledBytes).toBeGreaterThan(0);
    const reusedBefore = store.headSegments().reused;
    // Tenant 2's series (and tenant 1's again) grow heads from the pool.
    await fill(store, 2, 0, 0, 1500);
    await fill(store, 2, 1, 0, 1400);
    await fill(store, 1, 2, 0, 1300);
    expect(store.headSegments().reused).toBeGreaterThan(reusedBefore);
    // The answer taken before the segments changed hands is as it was.
    expect(Array.from(before!.ts)).toEqual(copy.ts);
    expect(Array.from(before!.values)).toEqual(copy.values);
    // Every series reads back its own points, sealed or in a reused head.
    await expectOwn(store, 1, 0, full + 10);
    await expectOwn(store, 1, 1, full + 10);
    await expectOwn(store, 2, 0, 1500);
    await expectOwn(store, 2, 1, 1400);
    await expectOwn(store, 1, 2, 1300);
    expect(await store.readSeries("t2", "gauge", "s2", 0, T0 + 1e9)).toBeUndefined();
  });

  it("keep out-of-order and repeated writes right through a reused head's sort", async () => {
    const store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
    await fill(store, 1, 0, 0, sealAt(1024) + 10);
    // Backwards, in batches, with every tenth point written twice (the second value wins).
    for (let a = 1500; a > 0; a -= 100) {
      const points = [];
      for (let i = a - 100; i < a; i++) points.push({ timestamp: T0 + i * 1000, value: pointValue(3, 0, i) - (i % 10 === 0 ? 1 : 0) });
      for (let i = a - 100; i < a; i += 10) points.push({ timestamp: T0 + i * 1000, value: pointValue(3, 0, i) });
      await store.write("t3", [{ type: "gauge", id: "s0", points }]);
      await tick();
    }
    expect(store.headSegments().reused).toBeGreaterThan(0);
    await expectOwn(store, 3, 0, 1500);
    await expectOwn(store, 1, 0, sealAt(1024) + 10);
  });
});

const SEGMENT_BYTES = MIN_SEGMENT * 16;

describe("the heads' pool", () => {
  it("holds at most its bytes of segments and hands them out again before making any", () => {
    const pool = new HeadSegments(8 * SEGMENT_BYTES);
    const taken = Array.from({ length: 12 }, () => pool.take(MIN_SEGMENT));
    expect(pool.made).toBe(12);
    for (const s of taken) pool.give(s);
    expect(pool.bytes).toBe(8 * SEGMENT_BYTES);
    const again = Array.from({ length: 10 }, () => pool.take(MIN_SEGMENT));
    expect(pool.reused).toBe(8);
    expect(pool.made).toBe(14);
    // The segments handed out again are those given back.
    expect(again.slice(0, 8).every((s) => taken.includes(s))).toBe(true);
    expect(pool.bytes).toBe(0);
  });

  it("makes room for the capacity the heads ask for when it is full of another", () => {
    // Room for 8 segments of 2,048 points; a round sealed heads whose segments were 4,096.
    const pool = new HeadSegments(8 * 2048 * 16);
    for (let i = 0; i < 4; i++) pool.give(new Float64Array(2 * 4096));
    expect(pool.bytes).toBe(4 * 4096 * 16);
    const taken = Array.from({ length: 8 }, () => pool.take(2048));
    expect(taken.every((s) => s.length === 2 * 2048)).toBe(true);
    for (const s of taken) pool.give(s);
    expect(pool.bytes).toBe(8 * 2048 * 16);
    const made = pool.made;
    for (let i = 0; i < 8; i++) pool.take(2048);
    expect(pool.made).toBe(made);
  });

  it("lets its segments go once no head has taken one for a while, and keeps them while heads do", () => {
    const pool = new HeadSegments(16 * SEGMENT_BYTES);
    let now = 1_000_000;
    pool.idle(now);
    for (let i = 0; i < 4; i++) pool.give(new Float64Array(2 * MIN_SEGMENT));
    // Steady ingest: a head takes one each round, for longer than the idle time.
    for (let round = 0; round < 3 * (POOL_IDLE_MS / 1000); round++) {
      pool.give(pool.take(MIN_SEGMENT));
      now += 1000;
      expect(pool.idle(now)).toBe(false);
    }
    expect(pool.bytes).toBe(4 * SEGMENT_BYTES);
    now += POOL_IDLE_MS - 1000;
    expect(pool.idle(now)).toBe(false);
    now += 1000;
    expect(pool.idle(now)).toBe(true);
    expect(pool.bytes).toBe(0);
    // Nothing held: nothing to do, and the next take makes a new segment.
    now += POOL_IDLE_MS;
    expect(pool.idle(now)).toBe(false);
    const made = pool.made;
    pool.take(MIN_SEGMENT);
    expect(pool.made).toBe(made + 1);
  });

  it("is let go by the store's maintenance once ingest has stopped", async () => {
    let clock = T0 + 12 * 3_600_000;
    const store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 20, now: () => clock });
    await fill(store, 1, 0, 0, sealAt(1024) + 10);
    await fill(store, 1, 1, 0, sealAt(1024) + 10);
    // The maintenance round seals what is due; the sealed heads' segments are held for reuse.
    for (let i = 0; i < 50 && store.headSegments().pooledBytes === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(store.headSegments().pooledBytes).toBeGreaterThan(0);
    // A few rounds at this time see the fill's last takes; then no head takes for longer than the idle time.
    await new Promise((r) => setTimeout(r, 200));
    clock += POOL_IDLE_MS + 1000;
    for (let i = 0; i < 100 && store.headSegments().pooledBytes > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(store.headSegments().pooledBytes).toBe(0);
    // Ingest again: heads grow as before, and read back their points.
    await fill(store, 1, 2, 0, 1300);
    await expectOwn(store, 1, 2, 1300);
    await expectOwn(store, 1, 0, sealAt(1024) + 10);
  });
});

describe("sealed heads' segments", () => {
  async function rounds(store: SqliteMetricsStore, series: number, from: number, to: number, advance: () => void): Promise<void> {
    for (let i = from; i < to; i++) {
      for (let k = 0; k < series; k++) await store.write("t1", [{ type: "gauge", id: `s${k}`, points: [{ timestamp: T0 + i * 1000, value: pointValue(1, k, i) }] }]);
      advance();
      store.flushDue();
    }
  }

  it("are refilled by the series written on, sealed for their size, without making new ones", async () => {
    let clock = T0 + 12 * 3_600_000;
    const store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkPoints: 40, now: () => clock });
    // Three seals of each head (at 40 points), one point a second.
    await rounds(store, 3, 0, 41, () => (clock += 1000));
    const made = store.headSegments().made;
    await rounds(store, 3, 41, 125, () => (clock += 1000));
    expect(store.headSegments().made).toBe(made);
    for (let k = 0; k < 3; k++) await expectOwn(store, 1, k, 125);
  });

  it("are not taken by slow heads sealed for their age: their points stay in the stream, fill after fill", async () => {
    let clock = T0 + 12 * 3_600_000;
    const store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkPoints: 1024, headMaxAgeMs: 30_000, now: () => clock });
    // A point a second: each head is sealed for its age at about 30 points.
    await rounds(store, 2, 0, 100, () => (clock += 1000));
    expect(store.headSegments().made).toBe(0);
    expect(store.headSegments().reused).toBe(0);
    for (let k = 0; k < 2; k++) await expectOwn(store, 1, k, 100);
  });
});
