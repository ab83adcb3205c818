/**
 * The memory governor (--memory-target, --memory-limit): collections above the target at most
 * once per spacing of bodies, a raised bar when the live memory itself is above the target, and
 * 503 with Retry-After above the limit after a collection was tried. The resident size is given
 * by the test so that each rule is exercised at the size it names.
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/http/errors.ts";
import { HEAP_READ_EVERY_MS, MEMORY_RETRY_AFTER_S, MemoryGovernor, READ_EVERY_MS } from "../../src/http/memory-governor.ts";

const MB = 1024 * 1024;

/** A governor over a simulated process: `rss` is what it reads; a collection sets it to `live`. */
function sim(o: { target: number; limit?: number; spacing?: number; minIntervalMs?: number; heapReadEveryMs?: number }) {
  /** `heap`: the engine's heap; a collection sets it to `heapLive` (0, 0: the heap not simulated). */
  const state = { rss: 0, live: 0, now: 0, collections: 0, heap: 0, heapLive: 0, heapReads: 0 };
  const g = new MemoryGovernor({
    targetBytes: o.target,
    limitBytes: o.limit ?? 0,
    spacingBytes: o.spacing ?? 16 * MB,
    minIntervalMs: o.minIntervalMs ?? 0,
    // The rules by bytes and intervals; the reads' own pace has its test below, young collections theirs in memory-governor-young.test.ts.
    readEveryMs: 0,
    heapReadEveryMs: o.heapReadEveryMs ?? 0,
    youngEveryMs: 0,
    rss: () => state.rss,
    collect: () => {
      state.collections++;
      state.rss = state.live;
      state.heap = state.heapLive;
    },
    heap: () => {
      state.heapReads++;
      return state.heap;
    },
    now: () => state.now,
  });
  return { g, state };
}

/** A governor (target 200 MB, 1 s interval) whose first collection freed little (heap 100 → 90 MB, resident 210 → 205): backing off. */
function backingOff(heapReadEveryMs?: number) {
  const s = sim({ target: 200 * MB, minIntervalMs: 1000, heapReadEveryMs });
  s.state.rss = 210 * MB;
  s.state.live = 205 * MB;
  s.state.heap = 100 * MB;
  s.state.heapLive = 90 * MB;
  s.g.admit(16 * MB);
  return s;
}

function refusal(f: () => void): ApiError | undefined {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  return undefined;
}

describe("MemoryGovernor", () => {
  it("does nothing when both target and limit are 0", () => {
    const { g, state } = sim({ target: 0 });
    state.rss = 10_000 * MB;
    for (let i = 0; i < 100; i++) g.admit(32 * MB);
    expect(g.enabled).toBe(false);
    expect(state.collections).toBe(0);
  });

  it("collects above the target, at most once per spacing of bodies, and not below it", () => {
    const { g, state } = sim({ target: 200 * MB });
    state.live = 120 * MB;
    state.rss = 150 * MB;
    for (let i = 0; i < 10; i++) g.admit(8 * MB);
    expect(state.collections).toBe(0);
    state.rss = 210 * MB;
    g.admit(8 * MB); // 88 MB of bodies since the start: over the spacing
    expect(state.collections).toBe(1);
    expect(state.rss).toBe(120 * MB);
    state.rss = 230 * MB;
    g.admit(8 * MB); // above the target but only 8 MB since the collection
    expect(state.collections).toBe(1);
    g.admit(8 * MB);
    expect(state.collections).toBe(2);
    expect(g.collections).toBe(2);
  });

  it("collects for the target at most once per interval, however much garbage comes meanwhile", () => {
    const { g, state } = sim({ target: 200 * MB, minIntervalMs: 1000 });
    state.live = 120 * MB;
    state.rss = 250 * MB;
    g.admit(32 * MB);
    expect(state.collections).toBe(1);
    // Memory not handed back yet (the allocator's delay): no collection again within the second.
    for (let i = 0; i < 20; i++) {
      state.rss = 300 * MB + i * MB;
      state.now = 50 * i;
      g.admit(32 * MB);
    }
    expect(state.collections).toBe(1);
    state.now = 1000;
    g.admit(32 * MB);
    expect(state.collections).toBe(2);
  });

  it("when the live memory is above the target, collects only once it grew by a quarter", () => {
    const { g, state } = sim({ target: 100 * MB });
    state.live = 400 * MB;
    state.rss = 450 * MB;
    g.admit(16 * MB);
    expect(state.collections).toBe(1);
    state.rss = 490 * MB; // under 400 × 1.25
    for (let i = 0; i < 10; i++) g.admit(16 * MB);
    expect(state.collections).toBe(1);
    state.rss = 510 * MB;
    g.admit(16 * MB);
    expect(state.collections).toBe(2);
    // Memory freed meanwhile lowers the bar back to the target.
    state.live = 50 * MB;
    state.rss = 60 * MB;
    g.admit(16 * MB);
    state.rss = 110 * MB;
    g.admit(16 * MB);
    expect(state.collections).toBe(3);
  });

  it("takes what a collection freed from the bar, though the allocator hands it back only later", () => {
    const { g, state } = sim({ target: 100 * MB });
    // The resident size does not fall at the collection (the allocator's delay); the heap does.
    state.rss = 300 * MB;
    state.live = 300 * MB;
    state.heap = 220 * MB;
    state.heapLive = 60 * MB;
    g.admit(16 * MB);
    expect(state.collections).toBe(1);
    // Bar: (300 − 160) × 1.25 = 175 MB, not 300 × 1.25: the next garbage is collected again.
    for (let i = 0; i < 3; i++) {
      state.heap = 220 * MB;
      g.admit(16 * MB);
    }
    expect(state.collections).toBe(4);
  });

  it("above the limit, tries a collection and accepts when it brought memory back under", () => {
    const { g, state } = sim({ target: 0, limit: 300 * MB });
    state.live = 200 * MB;
    state.rss = 350 * MB;
    expect(refusal(() => g.admit(1024))).toBeUndefined();
    expect(state.collections).toBe(1);
    expect(g.refused).toBe(0);
  });

  it("refuses with 503 and Retry-After while memory stays above the limit, collecting at most once a second", () => {
    const { g, state } = sim({ target: 0, limit: 300 * MB });
    state.live = 320 * MB;
    state.rss = 350 * MB;
    const e = refusal(() => g.admit(1024));
    expect(e?.status).toBe(503);
    expect(e?.headers).toEqual({ "Retry-After": String(MEMORY_RETRY_AFTER_S) });
    expect(e?.message).toBe("The collector's memory (320 MiB) is above --memory-limit (300 MiB); retry in 1 s");
    expect(state.collections).toBe(1);
    state.now = 500;
    expect(refusal(() => g.admit(1024))?.status).toBe(503);
    expect(state.collections).toBe(1);
    state.now = 1000;
    state.live = 250 * MB;
    expect(refusal(() => g.admit(1024))).toBeUndefined();
    expect(state.collections).toBe(2);
    expect(g.refused).toBe(2);
  });

  it("collectIfDue (MQTT batches) collects like admit but never refuses, even above the limit", () => {
    const { g, state } = sim({ target: 100 * MB, limit: 300 * MB });
    state.live = 320 * MB;
    state.rss = 350 * MB;
    expect(g.collectIfDue(16 * MB)).toBe(320 * MB);
    expect(state.collections).toBe(1);
    expect(g.collectIfDue(1024)).toBe(320 * MB);
    expect(g.refused).toBe(0);
  });

  it("garbage (sealing, reads) counts toward the spacing and reads the resident size only once it is reached", () => {
    const { g, state } = sim({ target: 200 * MB, spacing: 8 * MB });
    let reads = 0;
    const g2 = new MemoryGovernor({
      targetBytes: 200 * MB,
      limitBytes: 0,
      spacingBytes: 8 * MB,
      rss: () => {
        reads++;
        return state.rss;
      },
      collect: () => {
        state.collections++;
        state.rss = state.live;
      },
    });
    state.live = 140 * MB;
    state.rss = 230 * MB;
    for (let i = 0; i < 7; i++) g2.garbage(MB);
    expect(reads).toBe(0);
    expect(state.collections).toBe(0);
    g2.garbage(MB); // 8 MB counted, above the target: collects at once, no body needed
    expect(state.collections).toBe(1);
    expect(state.rss).toBe(140 * MB);
    // Below the target, counted garbage alone collects nothing; a body after it still can.
    g.garbage(8 * MB);
    expect(state.collections).toBe(1);
    state.rss = 210 * MB;
    // (read again once an eighth of the spacing more has come: a 1 MB body)
    g.admit(MB);
    expect(state.collections).toBe(2);
  });

  it("past the spacing but under the bar, reads the resident size again only after an eighth of the spacing more, and 50 ms", () => {
    let reads = 0;
    const state = { rss: 150 * MB, collections: 0, now: 0 };
    const g = new MemoryGovernor({
      targetBytes: 200 * MB,
      limitBytes: 0,
      spacingBytes: 8 * MB,
      rss: () => {
        reads++;
        return state.rss;
      },
      collect: () => {
        state.collections++;
      },
      now: () => state.now,
    });
    g.garbage(8 * MB);
    expect(reads).toBe(1);
    // A sealing round's chunks, 40 KB each: no read per chunk.
    for (let i = 0; i < 25; i++) g.garbage(40 * 1024);
    expect(reads).toBe(1);
    // An eighth of the spacing more, but within READ_EVERY_MS of the last read: still none.
    g.garbage(MB);
    expect(reads).toBe(1);
    // Bodies at 3 M points/s of HTTP JSON: 128 MB a second; over 49 ms, no read.
    for (let ms = 1; ms < READ_EVERY_MS; ms++) {
      state.now = ms;
      g.admit(128 * 1024);
    }
    expect(reads).toBe(1);
    state.now = READ_EVERY_MS;
    g.garbage(MB);
    expect(reads).toBe(2);
    // Over the target now: the next read, 50 ms on, collects.
    state.rss = 250 * MB;
    g.admit(MB);
    expect(state.collections).toBe(0);
    state.now = 2 * READ_EVERY_MS;
    g.admit(MB);
    expect(reads).toBe(4);
    expect(state.collections).toBe(1);
  });

  it("above the limit, reads at every body whatever the pace: a refusal is never decided on an old reading", () => {
    let reads = 0;
    const state = { rss: 350 * MB, now: 0 };
    const rss = () => {
      reads++;
      return state.rss;
    };
    const g = new MemoryGovernor({ targetBytes: 200 * MB, limitBytes: 300 * MB, spacingBytes: 8 * MB, rss, collect: () => {}, now: () => state.now });
    for (let i = 0; i < 3; i++) expect(refusal(() => g.admit(MB))?.status).toBe(503);
    state.rss = 250 * MB;
    expect(refusal(() => g.admit(MB))).toBeUndefined();
    expect(reads).toBeGreaterThanOrEqual(4);
  });

  it("garbage never collects with --memory-target 0", () => {
    const { g, state } = sim({ target: 0, limit: 300 * MB });
    state.rss = 250 * MB;
    g.garbage(64 * MB);
    expect(state.collections).toBe(0);
  });

  it("waits twice as long after each collection that freed little (up to 16 intervals), and an interval again after one that freed much", () => {
    const { g, state } = sim({ target: 100 * MB, minIntervalMs: 1000 });
    // What is live grows (heads filling): each collection finds the heap nearly all live.
    const collectAt = (now: number, heap: number, heapLive: number) => {
      state.now = now;
      state.heap = heap;
      state.heapLive = heapLive;
      // Resident size as the process had it: what the last collection left, doubled meanwhile.
      state.live = 300 * MB;
      state.rss = 600 * MB;
      g.admit(16 * MB);
    };
    collectAt(0, 100 * MB, 90 * MB);
    expect(state.collections).toBe(1);
    const waits: number[] = [];
    let last = 0;
    for (let t = 0; t <= 80_000 && state.collections < 7; t += 250) {
      const before = state.collections;
      collectAt(t, 100 * MB, 95 * MB);
      if (state.collections > before) {
        waits.push(t - last);
        last = t;
      }
    }
    expect(waits).toEqual([2000, 4000, 8000, 16_000, 16_000, 16_000]);
    // Garbage again: a collection that frees half the heap brings the interval back.
    collectAt(last + 16_000, 100 * MB, 50 * MB);
    expect(state.collections).toBe(8);
    collectAt(last + 17_000, 100 * MB, 95 * MB);
    expect(state.collections).toBe(9);
  });

  it("after a collection that freed little, waits for the resident size to pass 1.5 times what it left", () => {
    const { g, state } = sim({ target: 100 * MB });
    state.rss = 300 * MB;
    state.live = 280 * MB;
    state.heap = 100 * MB;
    state.heapLive = 95 * MB;
    g.admit(16 * MB);
    expect(state.collections).toBe(1);
    // 280 MB left: not again at 400 MB (280 × 1.25 would have collected), but past 420 MB.
    state.heap = 100 * MB;
    state.rss = 400 * MB;
    g.admit(16 * MB);
    expect(state.collections).toBe(1);
    state.rss = 430 * MB;
    g.admit(16 * MB);
    expect(state.collections).toBe(2);
  });

  it("while backing off, collects after one interval once the engine's heap has doubled since the last collection", () => {
    // The first collection falls while the heads fill: it frees little (100 → 90 MB).
    const { g, state } = backingOff();
    expect(state.collections).toBe(1);
    // Garbage piles up: the heap grows, the resident size stays under 1.5 × 205 MB.
    state.heapLive = 70 * MB;
    const at = (now: number, heap: number, rss: number) => {
      state.now = now;
      state.heap = heap;
      state.rss = rss;
      g.admit(16 * MB);
    };
    at(1000, 170 * MB, 260 * MB); // under twice the 90 MB left: the back-off holds (it waits 2 s)
    expect(state.collections).toBe(1);
    at(1200, 185 * MB, 280 * MB); // twice what was left: due after one interval, 1.5 bar or not
    expect(state.collections).toBe(2);
    // That one freed much: an interval and the quarter's bar again.
    state.live = 180 * MB;
    at(2300, 150 * MB, 240 * MB);
    expect(state.collections).toBe(3);
  });

  it("while backing off, reads the engine's heap at most once per HEAP_READ_EVERY_MS, and collects for a doubled heap at the next reading", () => {
    // A first collection that frees little (100 → 90 MB): the back-off starts.
    const { g, state } = backingOff(HEAP_READ_EVERY_MS);
    expect(state.collections).toBe(1);
    // Above the target, under the 1.5 bar, the heap under twice what was left: a body every 10 ms.
    state.rss = 260 * MB;
    state.heap = 170 * MB;
    const reads = state.heapReads;
    let t = 1000;
    for (; t < 1000 + HEAP_READ_EVERY_MS; t += 10) {
      state.now = t;
      // Past twice what was left from the second body on: the first reading stands meanwhile.
      if (t > 1000) state.heap = 185 * MB;
      g.admit(16 * MB);
    }
    expect(state.heapReads - reads).toBe(1);
    expect(state.collections).toBe(1);
    state.now = t;
    g.admit(16 * MB);
    expect(state.collections).toBe(2);
  });

  it("does not collect for a doubled heap under the target, nor sooner than an interval", () => {
    const { g, state } = sim({ target: 300 * MB, minIntervalMs: 1000 });
    state.rss = 310 * MB;
    state.live = 305 * MB;
    state.heap = 100 * MB;
    state.heapLive = 95 * MB;
    g.admit(16 * MB);
    expect(state.collections).toBe(1);
    state.now = 500;
    state.heap = 400 * MB;
    g.admit(16 * MB); // within the interval
    expect(state.collections).toBe(1);
    state.now = 1500;
    state.rss = 290 * MB; // under the target
    g.admit(16 * MB);
    expect(state.collections).toBe(1);
    state.rss = 320 * MB;
    g.admit(16 * MB);
    expect(state.collections).toBe(2);
  });

  it("tries a collection over the limit once a second, however little the last ones freed", () => {
    const { g, state } = sim({ target: 100 * MB, limit: 400 * MB, minIntervalMs: 1000 });
    state.heap = 100 * MB;
    state.heapLive = 99 * MB;
    state.live = 450 * MB;
    state.rss = 450 * MB;
    for (let i = 0; i < 5; i++) {
      state.now = i * 1000;
      state.heap = 100 * MB;
      expect(refusal(() => g.admit(1024))?.status).toBe(503);
    }
    expect(state.collections).toBe(5);
  });
  it("collects after answered queries once the heap is twice what the last collection left, above the target only", () => {
    const { g, state } = sim({ target: 200 * MB });
    const query = (grows: number) => {
      state.now += 300;
      const before = g.queryStarts();
      state.heap += grows;
      state.rss += grows;
      g.answered(before);
    };
    // Below the target: never, however much the queries leave.
    state.rss = 150 * MB;
    state.heap = state.heapLive = 80 * MB;
    for (let i = 0; i < 3; i++) query(15 * MB);
    expect(state.collections).toBe(0);
    // Above it: the first query that finds the heap above the bar collects (none known yet: 64 MB).
    state.rss = 250 * MB;
    state.live = 230 * MB;
    query(15 * MB);
    expect(state.collections).toBe(1);
    expect(state.heap).toBe(80 * MB);
    // Then not before the heap is twice the 80 MB left: five queries of 15 MB leave it at
    // 155 MB, the sixth at 170.
    for (let i = 0; i < 5; i++) query(15 * MB);
    expect(state.collections).toBe(1);
    query(15 * MB);
    expect(state.collections).toBe(2);
    // Small queries add up to the same bar.
    for (let i = 0; i < 79; i++) query(1 * MB);
    expect(state.collections).toBe(2);
    query(1 * MB);
    expect(state.collections).toBe(3);
  });

  it("takes a heap smaller than its last collection left, seen when a query starts, as the new bar", () => {
    const { g, state } = sim({ target: 200 * MB });
    state.rss = 300 * MB;
    state.live = 280 * MB;
    state.heap = 200 * MB;
    state.heapLive = 150 * MB;
    state.now = 1000;
    g.answered(g.queryStarts()); // 200 MB, above 0 + 64: a collection, 150 MB left
    expect(state.collections).toBe(1);
    // The engine collected on its own down to 70 MB: the bar is 70 + 70 MB (not 150 + 150).
    state.heap = 70 * MB;
    state.heapLive = 70 * MB;
    state.now += 300;
    let before = g.queryStarts();
    expect(before).toBe(70 * MB);
    state.heap += 65 * MB;
    g.answered(before);
    expect(state.collections).toBe(1);
    state.now += 300;
    before = g.queryStarts();
    state.heap += 10 * MB;
    g.answered(before);
    expect(state.collections).toBe(2);
  });

  it("ignores answered queries without a target", () => {
    const { g, state } = sim({ target: 0, limit: 500 * MB });
    state.rss = 400 * MB;
    state.heap = 300 * MB;
    expect(g.queryStarts()).toBeUndefined();
    g.answered(0);
    expect(state.collections).toBe(0);
  });

  it("looks at one query every 250 ms at most: the others read no heap", () => {
    const { g, state } = sim({ target: 200 * MB });
    let reads = 0;
    const heap = Object.getOwnPropertyDescriptor(state, "heap")!;
    let value = 100 * MB;
    Object.defineProperty(state, "heap", {
      get: () => {
        reads++;
        return value;
      },
      set: (v: number) => {
        value = v;
      },
    });
    expect(heap.value).toBe(0);
    state.rss = 150 * MB; // below the target: an answered query reads the heap once and collects nothing
    state.now = 1000;
    const first = g.queryStarts();
    expect(first).toBe(100 * MB);
    // Queries starting within the next 250 ms: nothing read, nothing collected.
    for (let t = 0; t < 249; t += 10) {
      state.now = 1000 + t;
      const before = g.queryStarts();
      expect(before).toBeUndefined();
      g.answered(before);
    }
    expect(reads).toBe(1);
    g.answered(first);
    expect(reads).toBe(2);
    state.now = 1250;
    expect(g.queryStarts()).toBe(100 * MB);
    expect(reads).toBe(3);
    expect(state.collections).toBe(0);
  });

  it("collects when asked after a large piece of work, outside its own rules: nothing when disabled", () => {
    const { g, state } = sim({ target: 100 * MB, spacing: 16 * MB });
    state.rss = 180 * MB;
    state.live = 90 * MB;
    g.collectNow();
    expect(state.collections).toBe(1);
    expect(state.rss).toBe(90 * MB);
    // Not one the target made (outpost_collector_memory_collections_total), and no bar raised:
    // the first spacing of bodies above the target collects as it would have.
    expect(g.collections).toBe(0);
    state.rss = 105 * MB;
    g.admit(16 * MB);
    expect(state.collections).toBe(2);
    const off = sim({ target: 0 });
    off.g.collectNow();
    expect(off.state.collections).toBe(0);
  });
});
