/**
 * SqliteMetricsStore.seriesReader (chunk lists of many series looked up in one statement)
 * answers exactly what readSeries and readParts answer series by series: across tenants and
 * types (strings, availability, unknown ids, a series given twice), for chunks written out of
 * order, expired but not yet deleted, and when chunks are sealed, deleted or a series deleted
 * and created again between the lookup and the read.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import type { MetricType } from "../../../src/metrics/model.ts";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const DAY = 86_400_000;
const T0 = 1_700_000_000_000;
let clock = T0;

const stores = sqliteMetricsStoresPerTest("outpost-series-reader-");

function open(chunkPoints: number) {
  clock = T0;
  return stores.open({ synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkPoints, defaultRetentionDays: 1, now: () => clock });
}

type Item = { type: MetricType; id: string };
const TYPES: MetricType[] = ["gauge", "counter", "availability", "string"];
const value = (type: MetricType, v: number) => (type === "availability" ? (v % 2 ? "up" : "down") : type === "string" ? `s${v}` : v);

/** What each item reads one by one, and through one reader in `order`. */
async function bothWays(s: SqliteMetricsStore, tenant: string, items: Item[], start: number, end: number, order: number[], between?: (k: number) => Promise<void>) {
  const reader = s.seriesReader(tenant, items, start, end);
  const viaReader: unknown[] = [];
  const single: unknown[] = [];
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    await between?.(k);
    const it = items[i]!;
    const parts = k % 2 === 0;
    viaReader.push(parts ? await reader.readParts(i) : await reader.readSeries(i));
    single.push(parts ? await s.readParts(tenant, it.type, it.id, start, end) : await s.readSeries(tenant, it.type, it.id, start, end));
  }
  return { viaReader, single };
}

describe("seriesReader", () => {
  it("reads what per-series reads read (random series, tenants, types, out of order, expiry)", async () => {
    const batch = fc.record({ at: fc.integer({ min: 0, max: 600 }), n: fc.integer({ min: 1, max: 30 }), step: fc.integer({ min: 1, max: 20 }), flush: fc.boolean(), later: fc.integer({ min: 0, max: 3 }) });
    const seriesSpec = fc.record({ tenant: fc.constantFrom("a", "b"), type: fc.constantFrom(...TYPES), id: fc.integer({ min: 0, max: 5 }), batches: fc.array(batch, { minLength: 1, maxLength: 4 }) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(seriesSpec, { minLength: 1, maxLength: 50 }),
        fc.integer({ min: 2, max: 12 }),
        fc.tuple(fc.integer({ min: -50, max: 700 }), fc.integer({ min: 0, max: 800 })),
        fc.constantFrom("forward", "backward", "shuffled"),
        fc.integer({ min: 0, max: 1_000_000 }),
        async (specs, chunkPoints, [a, len], how, seed) => {
          const s = await open(chunkPoints);
          // Batches written in rounds with the clock moving on: the first round's chunks expire (not deleted: no retention run).
          for (let round = 0; round < 4; round++) {
            for (const sp of specs) {
              for (const b of sp.batches.filter((x) => x.later === round)) {
                const points = Array.from({ length: b.n }, (_v, i) => ({ timestamp: T0 + (b.at + i * b.step) * 1000, value: value(sp.type, b.at + i + round) }));
                await s.write(sp.tenant, [{ type: sp.type, id: `m${sp.id}`, points }]);
                if (b.flush) s.flushDue(true);
              }
            }
            clock += 0.4 * DAY;
          }
          // Every tenant/type/id combination asked of tenant a (unknown ones too), one twice.
          const items: Item[] = [];
          for (const type of TYPES) for (let id = 0; id < 6; id++) items.push({ type, id: `m${id}` });
          items.push(items[7]!);
          const start = T0 + a * 1000;
          const end = start + len * 1000;
          let order = items.map((_x, i) => i);
          if (how === "backward") order.reverse();
          if (how === "shuffled") order = order.map((i) => [((i + 1) * (seed + 7919)) % 104729, i]).sort((x, y) => x[0]! - y[0]!).map((x) => x[1]!);
          const { viaReader, single } = await bothWays(s, "a", items, start, end, order);
          expect(viaReader).toEqual(single);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it("looks again when chunks are sealed, expired or deleted, or a series is deleted and created again, after its lookup", async () => {
    const s = await open(8);
    const items: Item[] = Array.from({ length: 40 }, (_v, k) => ({ type: "gauge" as const, id: `g${k}` }));
    const write = (k: number, from: number, n: number, v = 0) =>
      s.write("t", [{ type: "gauge", id: `g${k}`, points: Array.from({ length: n }, (_x, i) => ({ timestamp: T0 + (from + i) * 1000, value: v + k + i })) }]);
    for (let k = 0; k < 40; k++) await write(k, 0, 30);
    s.flushDue(true);
    for (let k = 0; k < 40; k++) await write(k, 30, 5);
    const order = items.map((_x, i) => i);
    const { viaReader, single } = await bothWays(s, "t", items, T0, T0 + 100_000, order, async (k) => {
      // After the first read has looked up the lists of the first 32 series:
      if (k === 1) s.flushDue(true); // the heads become chunks
      if (k === 3) await write(5, 10, 5, 1000); // rewritten timestamps (a later, overlapping chunk once sealed)
      if (k === 4) s.flushDue(true);
      if (k === 6) await s.deleteMetric("t", "gauge", "g7");
      if (k === 7) await write(8, 0, 3, 5000); // rewrites in the head only
      if (k === 9) {
        await s.deleteMetric("t", "gauge", "g10");
        await write(10, 50, 4, 9000); // created again: another sid
        s.flushDue(true);
      }
      if (k === 12) {
        clock += 2 * DAY; // everything sealed so far has expired; not deleted yet
        await write(13, 90, 3, 7);
      }
      if (k === 20) s.enforceRetention();
    });
    expect(viaReader).toEqual(single);
    // Not vacuous: series read before the expiry had chunks, g7 is gone, g10 has its new
    // points only, g13 (read after the expiry) only its head's.
    expect((single[0] as { pieces: unknown[] }).pieces.length).toBeGreaterThan(1);
    expect(single[7]).toBeUndefined();
    expect((single[10] as { pieces: { n?: number; ts?: Float64Array }[] }).pieces.map((p) => p.n ?? p.ts!.length)).toEqual([4]);
    expect(Array.from((single[13] as { ts: Float64Array }).ts)).toEqual([90, 91, 92].map((x) => T0 + x * 1000));
  });
});
