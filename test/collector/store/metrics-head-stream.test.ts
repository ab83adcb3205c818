/**
 * Frozen heads (issue 28): a head older than FREEZE_AFTER_MS encodes its full segments as it
 * grows. Whatever is frozen, the head answers exactly what a plain list of its writes (sorted,
 * last write of a timestamp wins) holds: in-order runs, repeats, steps back after a freeze,
 * clears and reuse of pooled segments between heads; and it holds fewer bytes for it.
 */
import { describe, expect, it } from "vitest";
import { HeadSegments } from "../../../collector/store/metrics/head-segments.ts";
import { FREEZE_AFTER_MS, SeriesHead } from "../../../collector/store/metrics/head.ts";
import { openSqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { uniform } from "../../helpers/series.ts";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

/** What a head must answer: its writes sorted by timestamp, the last write of each timestamp kept. */
class Reference {
  private readonly points = new Map<number, number>();
  add(t: number, v: number): void {
    this.points.set(t, v);
  }
  view(): { ts: number[]; nums: number[] } {
    const ts = [...this.points.keys()].sort((a, b) => a - b);
    return { ts, nums: ts.map((t) => this.points.get(t)!) };
  }
  clear(): void {
    this.points.clear();
  }
}

const view = (h: SeriesHead) => {
  const { ts, nums } = h.columns();
  return { ts: [...ts], nums: [...nums!] };
};

/** Values compared bit for bit (NaN equals NaN, -0 differs from 0), as the codec keeps them. */
const bits = (xs: number[]) => xs.map((x) => Buffer.from(Float64Array.of(x).buffer).toString("hex"));

describe("SeriesHead frozen blocks", () => {
  it("answers what its writes hold, frozen or not, on random slow and rough series", () => {
    let frozeSome = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const r = uniform(seed);
      const pool = new HeadSegments(1 << 20);
      // Two heads share the pool: a segment one gives back and the other takes must not leak points.
      const heads = [new SeriesHead(true, pool), new SeriesHead(true, pool)];
      const refs = [new Reference(), new Reference()];
      const clocks = [0, 0];
      const times = [1_000_000, 5_000_000];
      for (let step = 0; step < 3000; step++) {
        const k = r() < 0.5 ? 0 : 1;
        const h = heads[k]!;
        const x = r();
        // Mostly a point a second in order; now and then a repeat, a step back, a burst of many.
        let t = times[k]!;
        if (x < 0.01) t -= Math.floor(r() * 40_000);
        else if (x < 0.03) t = times[k]!;
        else t += 1000;
        if (t > times[k]!) times[k] = t;
        const v = r() < 0.02 ? Number.NaN : Math.floor(r() * 1000) / (r() < 0.5 ? 1 : 8);
        clocks[k]! += 1000;
        h.append(t, v, undefined, step + 1, clocks[k]!);
        refs[k]!.add(t, v);
        if (r() < 0.003) {
          expect(view(h).ts).toEqual(refs[k]!.view().ts);
          h.clear();
          refs[k]!.clear();
          clocks[k] = 0;
        }
        if (r() < 0.01) {
          const got = view(h);
          const want = refs[k]!.view();
          expect(got.ts).toEqual(want.ts);
          expect(bits(got.nums)).toEqual(bits(want.nums));
        }
        if (h.bytes < h.length * 8) frozeSome++;
      }
      for (let k = 0; k < 2; k++) {
        const got = view(heads[k]!);
        const want = refs[k]!.view();
        expect(got.ts).toEqual(want.ts);
        expect(bits(got.nums)).toEqual(bits(want.nums));
        expect(heads[k]!.length).toBe(want.ts.length);
      }
    }
    // Heads did freeze (bytes well under 16 a point) during the runs.
    expect(frozeSome).toBeGreaterThan(10_000);
  });

  it("freezes only a head older than FREEZE_AFTER_MS, and holds a slow gauge in few bytes", () => {
    const pool = new HeadSegments(1 << 20);
    const young = new SeriesHead(true, pool);
    const slow = new SeriesHead(true, pool);
    for (let i = 0; i < 1000; i++) {
      // 1,000 points within a second: never old enough to freeze.
      young.append(1000 + i, i % 7, undefined, 1, 500 + i / 2);
      // A point a second, as a scraped gauge.
      slow.append(1_700_000_000_000 + i * 1000 + (i % 3), (i * 13) % 1000, undefined, i + 1, i * 1000);
    }
    expect(young.bytes).toBeGreaterThanOrEqual(1000 * 16);
    // The newest segment raw (32 points), the rest frozen at a few bytes a point.
    expect(slow.bytes).toBeLessThan(32 * 16 + 1000 * 4);
    expect(slow.segmentCapacities).toEqual([32]);
    const { ts, nums } = slow.columns();
    expect(ts.length).toBe(1000);
    expect(ts[999]).toBe(1_700_000_000_000 + 999 * 1000);
    expect(nums![500]).toBe((500 * 13) % 1000);
    // Frozen before FREEZE_AFTER_MS had passed? The first freeze is at the first full segment after it.
    expect(FREEZE_AFTER_MS).toBeLessThan(32 * 1000);
  });

  it("takes a step back after freezing: sorted in, the last write of a timestamp wins", () => {
    const h = new SeriesHead(true, new HeadSegments(1 << 20));
    for (let i = 0; i < 100; i++) h.append(i * 1000, i, undefined, 1, i * 1000);
    expect(h.bytes).toBeLessThan(100 * 16);
    h.append(5_500, -1, undefined, 2, 100_000);
    h.append(7_000, -2, undefined, 2, 100_000);
    const { ts, nums } = h.columns();
    expect(ts.length).toBe(101);
    expect([...ts.subarray(5, 9)]).toEqual([5000, 5500, 6000, 7000]);
    expect([...nums!.subarray(5, 9)]).toEqual([5, -1, 6, -2]);
    // Sorted again, it appends in order as before.
    h.append(100_000, 100, undefined, 3, 101_000);
    expect(h.columns().ts[101]).toBe(100_000);
  });

  it("a cleared frozen head refills a small segment, not one sized for its last fill", () => {
    const h = new SeriesHead(true, new HeadSegments(1 << 20));
    for (let i = 0; i < 2048; i++) h.append(i * 1000, i, undefined, 1, i * 1000);
    h.clear();
    h.append(1, 1, undefined, 2, 3_000_000);
    expect(h.segmentCapacities).toEqual([32]);
  });
});

describe("frozen heads in the store", () => {
  const stores = sqliteMetricsStoresPerTest("outpost-head-frozen-");
  const T0 = Date.now() - 3_600_000;

  it("read, seal and replay after a reopen the points of slow series whose heads froze", async () => {
    let clock = Date.now();
    const opts = { synchronous: "NORMAL" as const, maintenanceIntervalMs: 3_600_000, now: () => clock };
    let store = await stores.open(opts);
    const value = (s: number, i: number) => (i % 5 === 0 ? i / 8 : s * 1000 + ((i * 13) % 997));
    // 3 series, a point a second each for 200 seconds of the store's clock: past FREEZE_AFTER_MS.
    const N = 200;
    for (let i = 0; i < N; i++) {
      clock += 1000;
      await store.write("t", [0, 1, 2].map((s) => ({ type: "gauge" as const, id: `s${s}`, points: [{ timestamp: T0 + i * 1000, value: value(s, i) }] })));
    }
    const expectAll = async () => {
      for (let s = 0; s < 3; s++) {
        const got = await store.readSeries("t", "gauge", `s${s}`, 0, T0 + N * 1000);
        expect(got?.ts.length).toBe(N);
        for (let i = 0; i < N; i++) {
          expect(got!.ts[i]).toBe(T0 + i * 1000);
          expect(got!.values[i]).toBe(value(s, i));
        }
      }
    };
    await expectAll();
    // Reopened: the ingest log rebuilds the heads.
    await store.close();
    store = await openSqliteMetricsStore({ dataDir: stores.dir, ...opts });
    try {
      await expectAll();
      // Sealed into chunks, as they read from disk.
      store.flushDue(true);
      await expectAll();
    } finally {
      await store.close();
    }
  });
});
