/**
 * The store's series by sid (sid-index.ts), its set of series with points in their heads
 * (dirty-set.ts) and each tenant's list of series (listed-series.ts), which replaced a Map and
 * two Sets (issue 28): checked against those, operation by operation, over random sequences, and
 * through a store whose series are sealed, deleted and written again. The heads' first log
 * batches (first-seqs.ts), which replaced a walk over every dirty head at each flush, against a
 * plain list of the batches held.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DirtySet } from "../../../collector/store/metrics/dirty-set.ts";
import { FirstSeqs } from "../../../collector/store/metrics/first-seqs.ts";
import { ListedSeries } from "../../../collector/store/metrics/listed-series.ts";
import { SidIndex } from "../../../collector/store/metrics/sid-index.ts";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

interface Item {
  sid: number;
  dirtyAt: number;
  listedAt: number;
}

const op = fc.record({ kind: fc.constantFrom("add", "delete"), sid: fc.integer({ min: 0, max: 60 }) });

describe("SidIndex", () => {
  it("answers as a Map by sid would, after any sequence of sets and deletes", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const index = new SidIndex<Item>();
        const model = new Map<number, Item>();
        for (const o of ops) {
          if (o.kind === "add") {
            const item = { sid: o.sid, dirtyAt: -1, listedAt: -1 };
            index.set(item);
            model.set(o.sid, item);
          } else {
            index.delete(o.sid);
            model.delete(o.sid);
          }
          expect(index.size).toBe(model.size);
        }
        for (let sid = 0; sid <= 61; sid++) {
          expect(index.get(sid)).toBe(model.get(sid));
          expect(index.has(sid)).toBe(model.has(sid));
        }
        expect([...index.values()].sort((a, b) => a.sid - b.sid)).toEqual([...model.values()].sort((a, b) => a.sid - b.sid));
      }),
    );
  });

  it("refuses a sid that cannot be an index", () => {
    const index = new SidIndex<Item>();
    expect(() => index.set({ sid: -1, dirtyAt: -1, listedAt: -1 })).toThrow(RangeError);
    expect(() => index.set({ sid: 1.5, dirtyAt: -1, listedAt: -1 })).toThrow(RangeError);
    expect(index.size).toBe(0);
  });
});

const freshItems = (): Item[] => Array.from({ length: 61 }, (_, sid) => ({ sid, dirtyAt: -1, listedAt: -1 }));

/** Applies the adds and deletes to `set` and to a Set, checking their sizes after each; returns the Set. */
function applyOps(ops: { kind: string; sid: number }[], items: Item[], set: { add(i: Item): void; delete(i: Item): void; readonly size: number }): Set<Item> {
  const model = new Set<Item>();
  for (const o of ops) {
    const item = items[o.sid]!;
    if (o.kind === "add") {
      set.add(item);
      model.add(item);
    } else {
      set.delete(item);
      model.delete(item);
    }
    expect(set.size).toBe(model.size);
  }
  return model;
}

describe("DirtySet", () => {
  it("holds what a Set would, each member once, after any sequence of adds and deletes", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const items = freshItems();
        const set = new DirtySet<Item>();
        const model = applyOps(ops, items, set);
        const members = [...set];
        expect(new Set(members).size).toBe(members.length);
        expect(new Set(members)).toEqual(model);
        expect(set.toArray()).toEqual(members);
        for (const item of items) {
          expect(set.has(item)).toBe(model.has(item));
          // Its own position is where it is, or -1.
          expect(item.dirtyAt === -1 ? !model.has(item) : members[item.dirtyAt] === item).toBe(true);
        }
      }),
    );
  });
});

describe("FirstSeqs", () => {
  // Heads start filling in log order: mostly the newest batch again or a later one, now and then an older one.
  const seqOp = fc.record({ kind: fc.constantFrom("add", "add", "remove"), step: fc.integer({ min: -3, max: 4 }), pick: fc.nat() });
  const exceptOf = (held: number[], picks: number[]) => {
    const except = new Map<number, number>();
    for (const p of picks) {
      if (held.length === 0) break;
      const seq = held[p % held.length]!;
      // Never more than are held of that batch: those about to be sealed are among the heads.
      if ((except.get(seq) ?? 0) < held.filter((h) => h === seq).length) except.set(seq, (except.get(seq) ?? 0) + 1);
    }
    return except;
  };

  it("gives the least batch held, apart from those about to be sealed, after any sequence of adds and removes", () => {
    fc.assert(
      fc.property(fc.array(seqOp, { maxLength: 400 }), fc.array(fc.nat(), { maxLength: 6 }), (ops, picks) => {
        const seqs = new FirstSeqs();
        const held: number[] = [];
        let newest = 100;
        for (const o of ops) {
          if (o.kind === "add") {
            newest = Math.max(1, newest + o.step);
            seqs.add(newest);
            held.push(newest);
          } else if (held.length > 0) {
            const [seq] = held.splice(o.pick % held.length, 1);
            seqs.remove(seq!);
          } else seqs.remove(o.pick);
          expect(seqs.least()).toBe(held.length ? Math.min(...held) : undefined);
        }
        const except = exceptOf(held, picks);
        const left = [...held];
        for (const [seq, n] of except) for (let i = 0; i < n; i++) left.splice(left.indexOf(seq), 1);
        expect(seqs.least(except)).toBe(left.length ? Math.min(...left) : undefined);
      }),
    );
  });

  it("keeps few entries for the batches it no longer holds", () => {
    const seqs = new FirstSeqs();
    for (let seq = 1; seq <= 20_000; seq++) seqs.add(seq);
    // Three heads of four sealed, newest first: the emptied entries are dropped as they pile up.
    for (let seq = 20_000; seq >= 1; seq--) if (seq % 4 !== 1) seqs.remove(seq);
    expect(seqs.least()).toBe(1);
    expect(seqs.entries).toBeLessThanOrEqual(2 * 5_000 + 1024);
    seqs.remove(1);
    expect(seqs.least()).toBe(5);
    for (let seq = 5; seq <= 19_997; seq += 4) seqs.remove(seq);
    expect(seqs.least()).toBeUndefined();
    expect(seqs.entries).toBe(0);
  });
});

describe("ListedSeries", () => {
  it("lists what a Set would, in the same order, after any sequence of adds and deletes", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 600 }), (ops) => {
        const list = new ListedSeries<Item>();
        const model = applyOps(ops, freshItems(), list);
        expect([...list]).toEqual([...model]);
      }),
    );
  });

  it("closes its holes once they are half the list, keeping the order", () => {
    const items = Array.from({ length: 200 }, (_, sid) => ({ sid, dirtyAt: -1, listedAt: -1 }));
    const list = new ListedSeries<Item>();
    for (const it of items) list.add(it);
    for (const it of items.slice(0, 150)) list.delete(it);
    expect([...list]).toEqual(items.slice(150));
    // Compacted once 101 were gone: the members moved down, in order; those removed are out.
    expect(items[150]!.listedAt).toBe(49);
    const at = items.slice(150).map((it) => it.listedAt);
    expect(at).toEqual(at.map((_, k) => 49 + k));
    expect(items.slice(0, 150).every((it) => it.listedAt === -1)).toBe(true);
    list.add(items[0]!);
    expect([...list]).toEqual([...items.slice(150), items[0]]);
  });
});

describe("a store with series sealed, deleted and written again", () => {
  const stores = sqliteMetricsStoresPerTest("outpost-series-sets-");
  const T0 = Date.now() - 3_600_000;

  it("keeps every series' points, and seals only those with points in their heads", async () => {
    const store = await stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000 });
    const ids = Array.from({ length: 40 }, (_, i) => `m${i}`);
    const write = (from: number, to: number, which: string[]) =>
      store.write(
        "t",
        which.map((id) => ({ type: "gauge" as const, id, points: Array.from({ length: to - from }, (_, k) => ({ timestamp: T0 + (from + k) * 1000, value: from + k })) })),
      );
    await write(0, 10, ids);
    expect(store.stats().headPoints).toBe(400);
    // Some series sealed, then some deleted, then all written again.
    store.flushDue(true);
    expect(store.stats().headPoints).toBe(0);
    await write(10, 20, ids.slice(0, 20));
    for (const id of ids.slice(10, 30)) expect(await store.deleteMetric("t", "gauge", id)).toBe(true);
    expect(store.stats().series).toBe(20);
    expect(store.stats().headPoints).toBe(100);
    await write(20, 25, ids);
    expect(store.stats().series).toBe(40);
    store.flushDue(true);
    expect(store.stats().headPoints).toBe(0);
    for (const [i, id] of ids.entries()) {
      const got = await store.readSeries("t", "gauge", id, 0, T0 + 60_000);
      const expected = i < 10 ? 25 : i < 30 ? 5 : 15;
      expect(got?.ts.length, id).toBe(expected);
      expect(got?.ts[got.ts.length - 1]).toBe(T0 + 24_000);
    }
  });
});
