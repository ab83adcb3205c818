/**
 * The SQLite metrics store tells its `released` hook (the collector's memory governor) of the
 * garbage that sealing and reads make: per sealed chunk its block (the head's segments go back
 * to the heads' pool, not to the garbage collector); per read decoded into fresh arrays, their bytes (issue 16: a sealing
 * round of 1,000 heads was the collector's peak resident size, and reads alone never triggered
 * a collection). Reads into a caller's reused buffers make no garbage and report nothing.
 * Registering series reports about a kilobyte each (the registration's strings, maps and rows
 * die young; remote write's first round registers tens of thousands at once: issue 28).
 */
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { describe, expect, it } from "vitest";
import type { SqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { clearOfMidnight } from "../../helpers/clear-of-midnight.ts";
import { sqliteMetricsStoresPerTest } from "../../helpers/temp-metrics-store.ts";

const CHUNK = 64;
const stores = sqliteMetricsStoresPerTest("outpost-released-");

const T0 = clearOfMidnight();

function open(released: number[]): Promise<SqliteMetricsStore> {
  return stores.open({
    synchronous: "NORMAL",
    maintenanceIntervalMs: 3_600_000,
    chunkPoints: CHUNK,
    released: (bytes) => released.push(bytes),
  });
}

function blockSizes(): number[] {
  const db = new Database(join(stores.dir, "metrics.db"), { readonly: true });
  try {
    return (db.query("SELECT length(body) AS b FROM chunks ORDER BY cid").all() as { b: number }[]).map((r) => r.b);
  } finally {
    db.close();
  }
}

describe("garbage reported to the memory governor", () => {
  it("reports each sealed chunk's block, and the heads' segments go to their pool", async () => {
    const released: number[] = [];
    const s = await open(released);
    // 100 points each: below the eager seal mark, so only the forced flush seals them.
    await s.write(
      "t",
      ["a", "b", "c"].map((id) => ({ type: "gauge" as const, id, points: Array.from({ length: 100 }, (_, i) => ({ timestamp: T0 + i * 1000, value: Math.sin(i) })) })),
    );
    expect(released).toEqual([]);
    s.flushDue(true);
    const expected = blockSizes();
    expect(expected.length).toBe(3);
    expect(released).toEqual(expected);
    // 100 points: 4 segments of 32 a head.
    expect(s.headSegments().pooledBytes).toBe(3 * 4 * 32 * 16);
  });

  it("reports a read decoded into fresh arrays, and none into the caller's buffers", async () => {
    const released: number[] = [];
    const s = await open(released);
    const n = 3 * CHUNK;
    await s.write("t", [{ type: "gauge", id: "a", points: Array.from({ length: n }, (_, i) => ({ timestamp: T0 + i * 1000, value: i })) }]);
    s.flushDue(true);
    released.length = 0;
    const back = await s.readRaw("t", "gauge", "a", { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" });
    expect(back.ts.length).toBe(n);
    expect(released).toEqual([16 * n]);
    released.length = 0;
    let lent = 0;
    const reused = await s.readSeries("t", "gauge", "a", 0, Number.MAX_SAFE_INTEGER, {
      take: (numbers) => {
        lent += numbers;
        return new Float64Array(numbers);
      },
      shrink: () => {},
    });
    expect(reused?.ts.length).toBe(n);
    expect(lent).toBe(2 * n);
    expect(released).toEqual([]);
  });

  it("reports a kilobyte per series that ensureTags registered, and nothing for series it already knew", async () => {
    const released: number[] = [];
    const s = await open(released);
    const items = (from: number, to: number) =>
      Array.from({ length: to - from }, (_, i) => ({ type: "gauge" as const, id: `up{i="${from + i}"}`, tags: Object.freeze({ __name__: "up", i: String(from + i) }) }));
    await s.ensureTags("t", items(0, 5000));
    expect(released).toEqual([5000 * 1024]);
    // The same series again (unchanged tags): nothing registered, nothing reported.
    await s.ensureTags("t", items(0, 5000));
    expect(released).toEqual([5000 * 1024]);
    await s.ensureTags("t", items(4990, 5010));
    expect(released).toEqual([5000 * 1024, 10 * 1024]);
  });
});
