/**
 * Streamed heads (issue 28): a head older than FREEZE_AFTER_MS when its segment is full moves
 * its points into a point stream and appends there. Whatever is streamed, the head answers
 * exactly what a plain list of its writes (sorted, last write of a timestamp wins) holds:
 * in-order runs, repeats, steps back after streaming, timestamps the stream refuses, clears and
 * reuse of pooled segments between heads; and it holds fewer bytes for it.
 */
import { describe, expect, it } from "vitest";
import { HeadSegments } from "../../../collector/store/metrics/head-segments.ts";
import { FAST_POINTS, FREEZE_AFTER_MS, STREAM_RUN_MAX, SeriesHead } from "../../../collector/store/metrics/head.ts";
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

describe("SeriesHead streamed points", () => {
  it("answers what its writes hold, streamed or not, on random slow and rough series", () => {
    let streamedSome = 0;
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
        // Mostly a point a second in order; now and then a repeat, a step back, a timestamp the
        // stream refuses (not an integer, or a step whose change is past 32 bits).
        let t = times[k]!;
        if (x < 0.003) t -= Math.floor(r() * 40_000);
        else if (x < 0.006) t = times[k]!;
        else if (x < 0.007) t += 0.5;
        else if (x < 0.008) t += 2 ** 32;
        else t += 1000 + (r() < 0.2 ? Math.floor(r() * 1000) - 500 : 0);
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
        if (h.length > 0 && h.segmentCapacities.length === 0) streamedSome++;
      }
      for (let k = 0; k < 2; k++) {
        const got = view(heads[k]!);
        const want = refs[k]!.view();
        expect(got.ts).toEqual(want.ts);
        expect(bits(got.nums)).toEqual(bits(want.nums));
        expect(heads[k]!.length).toBe(want.ts.length);
      }
    }
    // Heads did stream (no segment held) during much of the runs.
    expect(streamedSome).toBeGreaterThan(50_000);
  });

  it("streams only a head older than FREEZE_AFTER_MS, and holds a slow gauge in few bytes", () => {
    const pool = new HeadSegments(1 << 20);
    const young = new SeriesHead(true, pool);
    const slow = new SeriesHead(true, pool);
    for (let i = 0; i < 1000; i++) {
      // 1,000 points within a second: never old enough to stream.
      young.append(1000 + i, i % 7, undefined, 1, 500 + i / 2);
      // A point a second, as a scraped gauge.
      slow.append(1_700_000_000_000 + i * 1000 + (i % 3), (i * 13) % 1000, undefined, i + 1, i * 1000);
    }
    expect(young.heldBytes).toBeGreaterThanOrEqual(1000 * 16);
    // Every point in the stream at a few bytes a point, no segment held.
    expect(slow.heldBytes).toBeLessThan(1000 * 4);
    expect(slow.segmentCapacities).toEqual([]);
    const { ts, nums } = slow.columns();
    expect(ts.length).toBe(1000);
    expect(ts[999]).toBe(1_700_000_000_000 + 999 * 1000);
    expect(nums![500]).toBe((500 * 13) % 1000);
    // Streamed before FREEZE_AFTER_MS had passed? The stream starts at the first full segment after it.
    expect(FREEZE_AFTER_MS).toBeLessThan(32 * 1000);
  });

  it("has eighteen fields, the same in the same order, streamed, in segments, unsorted, tagged or of strings", () => {
    const pool = new HeadSegments(1 << 20);
    const streamed = new SeriesHead(true, pool);
    for (let i = 0; i < 10; i++) streamed.append(1_000 * i, i, undefined, 1, 0);
    const segments = new SeriesHead(true, pool);
    const ts = Float64Array.from({ length: 100 }, (_, i) => i);
    expect(segments.appendRun(ts, ts, 0, 100, 1, 0)).toBe(true);
    const unsorted = new SeriesHead(true, pool);
    for (const t of [5, 3, 4, 3]) unsorted.append(t, t, undefined, 1, 0);
    const tagged = new SeriesHead(true, pool);
    tagged.append(1, 1, { k: "v" }, 1, 0);
    const strings = new SeriesHead(false, pool);
    strings.append(1, "a", { k: "v" }, 1, 0);
    const cleared = new SeriesHead(true, pool);
    cleared.append(1, 1, { k: "v" }, 1, 0);
    cleared.normalize();
    cleared.clear();
    const heads = [streamed, segments, unsorted, tagged, strings, cleared, new SeriesHead(true)];
    expect(streamed.heldBytes).toBeLessThan(10 * 16);
    expect(unsorted.sorted).toBe(false);
    expect(tagged.tags).toEqual([{ k: "v" }]);
    expect(strings.strs).toEqual(["a"]);
    expect(cleared.tags).toBeUndefined();
    // The engine's object for 18 fields is 160 bytes, for 19 to 26 224: one for every series.
    const fields = Object.keys(streamed);
    expect(fields).toHaveLength(18);
    for (const h of heads) expect(Object.keys(h)).toEqual(fields);
  });

  it("takes a step back after streaming: sorted in, the last write of a timestamp wins", () => {
    const h = new SeriesHead(true, new HeadSegments(1 << 20));
    for (let i = 0; i < 100; i++) h.append(i * 1000, i, undefined, 1, i * 1000);
    expect(h.heldBytes).toBeLessThan(100 * 16);
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

  it("a cleared streamed head fills its stream again from the first point; a point it refuses goes to a small segment", () => {
    const h = new SeriesHead(true, new HeadSegments(1 << 20));
    for (let i = 0; i < 2048; i++) h.append(i * 1000, i, undefined, 1, i * 1000);
    expect(h.segmentCapacities).toEqual([]);
    h.clear();
    h.append(1, 1, undefined, 2, 3_000_000);
    expect(h.segmentCapacities).toEqual([]);
    expect(h.heldBytes).toBeLessThan(64);
    h.append(2.5, 2, undefined, 3, 3_000_000);
    expect(h.segmentCapacities).toEqual([32]);
    expect([...h.columns().ts]).toEqual([1, 2.5]);
    // Tags are kept by segments as well.
    h.clear();
    h.append(10, 1, undefined, 4, 4_000_000);
    h.append(11, 2, { a: "b" }, 4, 4_000_000);
    expect(h.segmentCapacities).toEqual([32]);
    expect([...h.columns().nums!]).toEqual([1, 2]);
  });
});

describe("where a new head starts", () => {
  it("one point at a time or a short run: in the stream; a long run: in segments; too fast for the stream: into segments, and the next fill too", () => {
    const pool = new HeadSegments(1 << 20);
    const single = new SeriesHead(true, pool);
    single.appendRun(Float64Array.of(1000), Float64Array.of(1), 0, 1, 1, 0);
    expect(single.segmentCapacities).toEqual([]);
    expect(single.heldBytes).toBeGreaterThan(0);
    expect(single.heldBytes).toBeLessThan(64);

    // A backlog's request over many shards: a few points of the series at once.
    const short = new SeriesHead(true, pool);
    short.appendRun(Float64Array.of(1000, 2000, 3000), Float64Array.of(1, 2, 3), 0, 3, 1, 0);
    expect(short.segmentCapacities).toEqual([]);
    expect(view(short)).toEqual({ ts: [1000, 2000, 3000], nums: [1, 2, 3] });

    const long = new SeriesHead(true, pool);
    const n = STREAM_RUN_MAX + 1;
    const ts = Float64Array.from({ length: n }, (_, i) => 1000 * (i + 1));
    const nums = Float64Array.from({ length: n }, (_, i) => i / 2);
    long.appendRun(ts, nums, 0, n, 1, 0);
    expect(long.segmentCapacities.length).toBeGreaterThan(0);
    expect(view(long)).toEqual({ ts: [...ts], nums: [...nums] });

    const fast = new SeriesHead(true, pool);
    const ref = new Reference();
    // FAST_POINTS points, one per call, within a second.
    for (let i = 0; i < FAST_POINTS; i++) {
      fast.appendRun(Float64Array.of(1000 + i), Float64Array.of(i / 4), 0, 1, 1, i);
      ref.add(1000 + i, i / 4);
      expect(fast.segmentCapacities.length === 0).toBe(i < FAST_POINTS - 1);
    }
    expect(view(fast)).toEqual(ref.view());
    fast.clear();
    fast.append(5000, 1, undefined, 2, 60_000);
    expect(fast.segmentCapacities).toEqual([32]);
  });
});

describe("a backlog sent over many shards", () => {
  it("keeps the few points a request brings of each series in the stream: a few bytes a point, not 16", () => {
    // Prometheus catching up over 200 shards: every request carries 2 or 3 points of each series
    // it names, a 1 s scrape caught up about nine times as fast as it was taken (FAST_POINTS
    // within FREEZE_AFTER_MS is faster still).
    const pool = new HeadSegments(1 << 22);
    const heads = Array.from({ length: 500 }, () => new SeriesHead(true, pool));
    const refs = heads.map(() => new Reference());
    let t = 1_700_000_000_000;
    let now = 0;
    for (let req = 0; req < 60; req++) {
      const k = req % 2 === 0 ? 3 : 2;
      const ts = Float64Array.from({ length: k }, (_, i) => t + i * 1000);
      heads.forEach((h, s) => {
        const nums = Float64Array.from({ length: k }, (_, i) => s * 100 + req * 3 + i);
        h.appendRun(ts, nums, 0, k, req + 1, now);
        for (let i = 0; i < k; i++) refs[s]!.add(ts[i]!, nums[i]!);
      });
      t += k * 1000;
      now += 280;
      // Every head, all along (not only once its segments would have been old enough to stream).
      if (req % 10 === 9) {
        expect(heads.every((h) => h.segmentCapacities.length === 0)).toBe(true);
        const points = heads.reduce((n, h) => n + h.length, 0);
        expect(points).toBe(500 * (req + 1) * 2.5);
        expect(heads.reduce((n, h) => n + h.heldBytes, 0) / points).toBeLessThan(4);
      }
    }
    for (const [s, h] of heads.entries()) expect(view(h)).toEqual(refs[s]!.view());
  });
});

describe("streamed heads in the store", () => {
  const stores = sqliteMetricsStoresPerTest("outpost-head-frozen-");
  const T0 = Date.now() - 3_600_000;

  it("read, seal and replay after a reopen the points of slow series whose heads streamed", async () => {
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
