/**
 * A head's bulk append (appendRun, issue 28) leaves the head exactly as appending the same
 * points one at a time does, or declines and appends nothing: runs in order, repeated and
 * earlier timestamps, heads already unsorted or with tags, arrays taken from a pool.
 */
import { describe, expect, it } from "vitest";
import { HeadArrays } from "../../../collector/store/metrics/head-arrays.ts";
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
  h.normalize();
  return { ts: [...h.ts.subarray(0, h.length)], nums: [...h.nums!.subarray(0, h.length)], lastSeq: h.lastSeq, firstArrival: h.firstArrival };
};

describe("SeriesHead.appendRun", () => {
  it("matches point-by-point appends on random runs, or declines without appending", () => {
    let totalTaken = 0;
    let totalDeclined = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      const pool = new HeadArrays(1 << 20);
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

describe("a head's capacity", () => {
  it("grows by half again below the pool's sizes and doubles from there, keeping every point", () => {
    const pool = new HeadArrays(64 * 1024 * 1024);
    const h = new SeriesHead(true, pool);
    const caps: number[] = [h.ts.length];
    for (let i = 0; i < 3000; i++) {
      h.append(1000 * i, i, undefined, 1, 0);
      if (h.ts.length !== caps[caps.length - 1]) caps.push(h.ts.length);
    }
    // 80 points (a slow series sealed by the heads' budget) fit in 96, not 128.
    expect(caps.find((c) => c >= 80)).toBe(96);
    for (let k = 1; k < caps.length; k++) {
      const [a, b] = [caps[k - 1]!, caps[k]!];
      if (a < 1024) expect(b).toBe(Math.min(1024, Math.ceil((a * 1.5) / 8) * 8));
      else expect(b).toBe(a * 2);
    }
    expect(caps.slice(-2)).toEqual([2048, 4096]);
    expect(view(h).ts).toEqual(Array.from({ length: 3000 }, (_, i) => 1000 * i));
    // Emptied, it refills at a size the pool keeps (a power of two from 1,024 on).
    h.clear();
    h.append(0, 0, undefined, 2, 0);
    expect(h.ts.length).toBe(4096);
  });
});
