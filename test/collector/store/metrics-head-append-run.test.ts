/**
 * A head's bulk append (appendRun, issue 28) leaves the head exactly as appending the same
 * points one at a time does, or declines and appends nothing: runs in order, repeated and
 * earlier timestamps, heads already unsorted or with tags, segments taken from a pool.
 */
import { describe, expect, it } from "vitest";
import { HeadSegments, MIN_SEGMENT } from "../../../collector/store/metrics/head-segments.ts";
import { SeriesHead } from "../../../collector/store/metrics/head.ts";

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const view = (h: SeriesHead) => {
  const { ts, nums } = h.columns();
  return { ts: [...ts], nums: [...nums!], lastSeq: h.lastSeq, firstArrival: h.firstArrival };
};

describe("SeriesHead.appendRun", () => {
  it("matches point-by-point appends on random runs, or declines without appending", () => {
    let totalTaken = 0;
    let totalDeclined = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      const pool = new HeadSegments(1 << 20);
      const bulk = new SeriesHead(true, pool);
      const one = new SeriesHead(true, pool);
      let t = 1000;
      let declined = 0;
      let taken = 0;
      for (let round = 0; round < 12; round++) {
        const n = Math.floor(r() * 700);
        // Most runs rise cleanly (the bulk path); some have repeats or steps back, some start before the head's last point.
        const rough = r() < 0.3;
        if (r() < 0.1) t -= Math.floor(r() * 20);
        const ts = new Float64Array(n + 3);
        const nums = new Float64Array(n + 3);
        for (let k = 0; k < ts.length; k++) {
          const x = r();
          // Mostly rising; now and then a repeat or a step back.
          t = rough && x < 0.02 ? t : rough && x < 0.04 ? t - Math.floor(r() * 50) : t + 1 + Math.floor(r() * 10);
          ts[k] = t;
          nums[k] = r() < 0.01 ? Number.NaN : r() * 100;
        }
        const from = 1;
        const seq = round + 1;
        const now = 5000 + round;
        const before = bulk.length;
        if (bulk.appendRun(ts, nums, from, n, seq, now)) taken++;
        else {
          declined++;
          expect(bulk.length).toBe(before);
          for (let k = from; k < from + n; k++) bulk.append(ts[k]!, nums[k]!, undefined, seq, now);
        }
        for (let k = from; k < from + n; k++) one.append(ts[k]!, nums[k]!, undefined, seq, now);
        if (r() < 0.2) {
          expect(view(bulk)).toEqual(view(one));
          bulk.clear();
          one.clear();
        }
      }
      expect(view(bulk)).toEqual(view(one));
      totalTaken += taken;
      totalDeclined += declined;
    }
    // Both paths were exercised.
    expect(totalTaken).toBeGreaterThan(1000);
    expect(totalDeclined).toBeGreaterThan(300);
  });

  it("declines for a head with tags and for string heads", () => {
    const ts = Float64Array.of(1, 2, 3);
    const nums = Float64Array.of(1, 2, 3);
    const tagged = new SeriesHead(true);
    tagged.append(0, 1, { a: "b" }, 1, 0);
    expect(tagged.appendRun(ts, nums, 0, 3, 2, 0)).toBe(false);
    expect(tagged.length).toBe(1);
    const strings = new SeriesHead(false);
    expect(strings.appendRun(ts, nums, 0, 3, 2, 0)).toBe(false);
    expect(strings.length).toBe(0);
  });
});

describe("a head's segments", () => {
  it("grow by 32 points up to 256, then by doubling, never moving a point, and go back to the pool when emptied", () => {
    const pool = new HeadSegments(64 * 1024 * 1024);
    const h = new SeriesHead(true, pool);
    expect(h.segmentCapacities).toEqual([]);
    for (let i = 0; i < 3000; i++) h.append(1000 * i, i, undefined, 1, 0);
    expect(h.segmentCapacities).toEqual([32, 32, 32, 32, 32, 32, 32, 32, 256, 512, 1024, 2048]);
    expect(pool.made).toBe(12);
    expect(view(h).ts).toEqual(Array.from({ length: 3000 }, (_, i) => 1000 * i));
    expect(view(h).nums).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    h.clear();
    expect(h.segmentCapacities).toEqual([]);
    expect(pool.bytes).toBe(4096 * 16);
  });

  it("refill a head sealed at 512 points or more into one segment, read without a copy; a smaller one from 32", () => {
    const pool = new HeadSegments(64 * 1024 * 1024);
    const big = new SeriesHead(true, pool);
    const ts = Float64Array.from({ length: 3000 }, (_, i) => 1000 * i);
    const nums = Float64Array.from({ length: 3000 }, (_, i) => -i);
    big.appendRun(ts, nums, 0, 3000, 1, 0);
    big.clear();
    // The pool holds one of the refill's capacity (an earlier refill's).
    pool.give(new Float64Array(2 * 4096));
    big.appendRun(ts, nums, 0, 3000, 2, 0);
    expect(big.segmentCapacities).toEqual([4096]);
    const a = big.columns();
    expect(a.ts.buffer).toBe(big.columns().ts.buffer);
    expect([...a.nums!]).toEqual([...nums]);
    const small = new SeriesHead(true, pool);
    small.appendRun(ts, nums, 0, 300, 1, 0);
    small.clear();
    small.appendRun(ts, nums, 0, 40, 2, 0);
    expect(small.segmentCapacities).toEqual([MIN_SEGMENT, MIN_SEGMENT]);
    // The small head's segments came from the pool (the first fill's, given back).
    const made = pool.made;
    small.clear();
    small.appendRun(ts, nums, 0, 40, 3, 0);
    expect(pool.made).toBe(made);
  });

  it("refill a head sealed past the store's bound into the bound's segment, not one twice as large", () => {
    // The store seals heads before 2 × 1,024 points; the flush reached this one at 2,100 (a bulk load).
    const pool = new HeadSegments(64 * 1024 * 1024, 2 * 1024);
    expect(pool.largestRefill).toBe(2048);
    const ts = Float64Array.from({ length: 2100 }, (_, i) => 1000 * i);
    const nums = Float64Array.from({ length: 2100 }, (_, i) => i);
    const h = new SeriesHead(true, pool);
    h.appendRun(ts, nums, 0, 2100, 1, 0);
    h.clear();
    pool.release();
    h.appendRun(ts, nums, 0, 100, 2, 0);
    // Refilled into 4,096 before, a size a pool given back the store's seals never held.
    expect(h.segmentCapacities).toEqual([2048]);
    // Without a bound (a pool of its own, as in tests), the largest is MAX_SEGMENT's.
    expect(new HeadSegments(1 << 20).largestRefill).toBe(4096);
  });

  it("refill from the smaller segments the pool holds before making new ones, and read back every point", () => {
    const pool = new HeadSegments(64 * 1024 * 1024, 2 * 1024);
    const ts = Float64Array.from({ length: 2000 }, (_, i) => 1000 * i);
    const nums = Float64Array.from({ length: 2000 }, (_, i) => i / 7);
    const h = new SeriesHead(true, pool);
    // The first fill: 8 × 32, then 256, 512 and 1,024 points.
    h.appendRun(ts, nums, 0, 1900, 1, 0);
    h.clear();
    const made = pool.made;
    // The refill asks for 2,048, which the pool never held: it takes its 1,024, 512 and 256.
    h.appendRun(ts, nums, 0, 1792, 2, 0);
    expect(h.segmentCapacities).toEqual([1024, 512, 256]);
    expect(pool.made).toBe(made);
    expect(view(h).nums).toEqual(Array.from(nums.subarray(0, 1792)));
    // Growing on past them doubles from the largest power of two within what it holds.
    h.appendRun(ts, nums, 1792, 208, 3, 0);
    expect(h.segmentCapacities).toEqual([1024, 512, 256, 1024]);
    expect(pool.made).toBe(made + 1);
    expect(view(h).ts).toEqual(Array.from(ts));
    expect(view(h).nums).toEqual(Array.from(nums));
    // Slow heads' 32-point segments are not handed out for larger ones.
    const p2 = new HeadSegments(1 << 20);
    for (let i = 0; i < 8; i++) p2.give(new Float64Array(2 * 32));
    expect(p2.take(256).length).toBe(2 * 256);
    expect(p2.bytes).toBe(8 * 32 * 16);
  });

  it("give back the segments a sort's duplicates emptied, and keep the latest write of each timestamp", () => {
    const pool = new HeadSegments(1 << 20);
    const h = new SeriesHead(true, pool);
    // 100 timestamps, each written three times, backwards: 300 points.
    for (let round = 0; round < 3; round++) for (let i = 99; i >= 0; i--) h.append(i, round * 1000 + i, undefined, round + 1, 0);
    expect(h.segmentCapacities).toEqual([32, 32, 32, 32, 32, 32, 32, 32, 256]);
    expect(view(h).ts).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(view(h).nums).toEqual(Array.from({ length: 100 }, (_, i) => 2000 + i));
    expect(h.segmentCapacities).toEqual([32, 32, 32, 32]);
    expect(pool.bytes).toBe((4 * 32 + 256) * 16);
    // Appends go on after the sort, in the last segment; a repeat of the last timestamp replaces it.
    h.append(100, 7, undefined, 4, 0);
    h.append(100, 8, undefined, 4, 0);
    expect(h.length).toBe(101);
    expect(view(h).nums.at(-1)).toBe(8);
  });

  it("keep a string head's values, sorted with its timestamps", () => {
    const h = new SeriesHead(false, new HeadSegments(1 << 20));
    for (let i = 40; i > 0; i--) h.append(i, `v${i}`, undefined, 1, 0);
    h.append(5, "again", undefined, 2, 0);
    const { ts, nums } = h.columns();
    expect(nums).toBeUndefined();
    expect([...ts]).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(h.strs!.slice(0, h.length)).toEqual(Array.from({ length: 40 }, (_, i) => (i + 1 === 5 ? "again" : `v${i + 1}`)));
  });
});
