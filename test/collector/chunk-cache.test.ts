/**
 * The chunk cache's size is the option --chunk-cache, and its memory is in the self-metrics.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ChunkCache } from "../../collector/store/metrics/chunk-cache.ts";
import { openSqliteMetricsStore } from "../../collector/store/metrics/sqlite/store.ts";
import { waitFor } from "../helpers/ports.ts";
import { clearOfMidnight } from "../helpers/clear-of-midnight.ts";
import { portOf, Running, run } from "../helpers/program.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "outpost-cache-"));
  dirs.push(d);
  return d;
}
const T0 = clearOfMidnight();
const series = (id: string, n: number) => ({ id, data: Array.from({ length: n }, (_, i) => ({ timestamp: T0 + i * 1000, value: Math.sin(i) })) });

function sample(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no sample ${name}`);
  return Number(line.slice(name.length + 1));
}

describe("the chunk cache", () => {
  it("never throws out an entry read within keepReadWithinMs for a newcomer: the newcomer is declined until that entry goes unread that long", () => {
    let now = 1_000_000;
    const cache = new ChunkCache(10_000, () => now, 60_000);
    const block = (n: number) => ({ n: 1, block: new Uint8Array(n) });
    for (let cid = 0; cid < 5; cid++) cache.set(cid, block(1_900)); // 2,000 B each with the entry overhead: full
    expect(cache.size).toEqual({ entries: 5, bytes: 10_000, budget: 10_000 });
    now += 30_000;
    expect(cache.admits(2_000)).toBe(false);
    cache.set(5, block(1_900));
    expect(cache.get(5)).toBeUndefined();
    for (let cid = 0; cid < 5; cid++) expect(cache.get(cid)).toBeDefined();
    // Read again at 30 s: none of them has gone unread for a minute at 80 s.
    now += 50_000;
    expect(cache.admits(2_000)).toBe(false);
    expect(cache.get(3)).toBeDefined();
    now += 10_001;
    // 0, 1, 2 and 4 were last read 60,001 ms ago, 3 just now: room is made from the least recently read.
    expect(cache.admits(2_400)).toBe(true);
    expect(cache.size.entries).toBe(3);
    expect(cache.get(0)).toBeUndefined();
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(3)).toBeDefined();
    // Larger than a quarter of the budget: never kept.
    expect(cache.admits(2_501)).toBe(false);
  });

  it("keeps a pass over more chunks than it holds for the next pass, where least-recently-read order keeps none", () => {
    const now = 1_000_000;
    const block = () => ({ n: 1, block: new Uint8Array(900) }); // 1,000 B with the entry overhead
    const hitsOfSecondPass = (cache: ChunkCache) => {
      let hits = 0;
      for (let pass = 0; pass < 2; pass++) {
        for (let cid = 0; cid < 20; cid++) {
          if (cache.get(cid)) {
            if (pass === 1) hits++;
          } else if (cache.admits(1_000)) cache.set(cid, block());
        }
      }
      return hits;
    };
    // A query over 20 chunks rerun, with room for 8: each entry thrown out before its next read.
    expect(hitsOfSecondPass(new ChunkCache(8_000, () => now))).toBe(0);
    expect(hitsOfSecondPass(new ChunkCache(8_000, () => now, 60_000))).toBe(8);
  });

  it("stays within its budget, whatever is read", async () => {
    const s = await openSqliteMetricsStore({ dataDir: tempDir(), synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkCacheBytes: 100_000 });
    try {
      const pts = Array.from({ length: 3000 }, (_, i) => ({ timestamp: T0 + i * 1000, value: Math.sin(i) }));
      await s.write("t", Array.from({ length: 10 }, (_, k) => ({ type: "gauge" as const, id: `g${k}`, points: pts })));
      s.flushDue(true);
      expect(s.memory().chunkCacheBytes).toBe(0);
      for (let k = 0; k < 10; k++) expect((await s.readRaw("t", "gauge", `g${k}`, { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" })).ts).toHaveLength(3000);
      const m = s.memory();
      expect(m.chunkCacheChunks).toBeGreaterThan(0);
      expect(m.chunkCacheBytes).toBeGreaterThan(0);
      expect(m.chunkCacheBytes).toBeLessThanOrEqual(100_000);
      expect(m.headPoints).toBe(0);
    } finally {
      await s.close();
    }
  });

  it("keeps decoded copies of chunks read more than once, and answers the same", async () => {
    const s = await openSqliteMetricsStore({ dataDir: tempDir(), synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkCacheBytes: 4 * 1024 ** 2 });
    try {
      const pts = Array.from({ length: 5000 }, (_, i) => ({ timestamp: T0 + i * 500, value: Math.sin(i) }));
      await s.write("t", [{ type: "gauge", id: "g", points: pts }]);
      s.flushDue(true);
      const range = { start: T0 + 1000, end: T0 + 2_000_000, order: "asc" as const };
      const first = await s.readRaw("t", "gauge", "g", range);
      const blocksOnly = s.memory();
      const second = await s.readRaw("t", "gauge", "g", range);
      const third = await s.readRaw("t", "gauge", "g", range);
      expect(first.values).toEqual(pts.slice(2, 4000).map((p) => p.value));
      expect(second).toEqual(first);
      expect(third).toEqual(first);
      // The second read decoded each chunk once more and kept the result (16 bytes a point): at
      // least the points read (the chunks the range touches may hold more).
      expect(s.memory().chunkCacheChunks).toBe(2 * blocksOnly.chunkCacheChunks);
      expect(s.memory().chunkCacheBytes).toBeGreaterThan(blocksOnly.chunkCacheBytes + first.values.length * 16);
      expect(s.memory().chunkCacheBytes).toBeLessThanOrEqual(4 * 1024 ** 2);
    } finally {
      await s.close();
    }
  });

  it("a rerun read of more chunks than the decoded copies' quarter holds finds the copies of its first pass, and counts where each read was answered", async () => {
    // 100 KB for copies: four of the 40 chunks (1,250 points each, 20.1 KB decoded).
    const s = await openSqliteMetricsStore({ dataDir: tempDir(), synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, chunkCacheBytes: 400_000 });
    try {
      const pts = Array.from({ length: 5000 }, (_, i) => ({ timestamp: T0 + i * 1000, value: i }));
      await s.write("t", Array.from({ length: 10 }, (_, k) => ({ type: "gauge" as const, id: `g${k}`, points: pts })));
      s.flushDue(true);
      const pass = async () => {
        const before = s.memory().chunkReads;
        for (let k = 0; k < 10; k++) expect((await s.readRaw("t", "gauge", `g${k}`, { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" })).ts).toHaveLength(5000);
        const after = s.memory().chunkReads;
        return { decoded: after.decoded - before.decoded, block: after.block - before.block, database: after.database - before.database };
      };
      expect(await pass()).toEqual({ decoded: 0, block: 0, database: 40 });
      // Read once before: copies are made while the quarter has room, and kept.
      expect(await pass()).toEqual({ decoded: 0, block: 40, database: 0 });
      const third = await pass();
      expect(third).toEqual({ decoded: 4, block: 36, database: 0 });
      expect(await pass()).toEqual(third);
      expect(s.memory().chunkCacheBytes).toBeLessThanOrEqual(400_000);
    } finally {
      await s.close();
    }
  });

  it("is sized by --chunk-cache and counted in the self-metrics", async () => {
    const collector = Running.start("collector", ["--data-dir", tempDir(), "--http-port", "0", "--mqtt-port", "0", "--chunk-cache", "1MB", "--self-metrics-interval", "0"]);
    try {
      const url = `http://127.0.0.1:${portOf(await collector.waitForLine(/HTTP listening/))}`;
      await collector.waitForLine(/collector ready/);
      const H = { "Svc-Tenant": "t", "Content-Type": "application/json" };
      const w = await fetch(`${url}/svc/metrics/gauges/raw`, { method: "POST", headers: H, body: JSON.stringify([series("a", 3000), series("b", 3000)]) });
      expect(w.status).toBe(200);
      const metrics = async () => (await fetch(`${url}/metrics`)).text();
      // Heads of 1,024 points and more are sealed by the background flush within a second or so.
      await waitFor("the heads sealed", async () => (sample(await metrics(), "outpost_collector_head_points") === 0 ? true : undefined));
      expect(sample(await metrics(), "outpost_collector_chunk_cache_bytes")).toBe(0);
      for (const id of ["a", "b"]) {
        const r = await fetch(`${url}/svc/metrics/gauges/${id}/raw?start=${T0}&end=${T0 + 3_600_000}&limit=5000`, { headers: H });
        expect(((await r.json()) as unknown[]).length).toBe(3000);
      }
      const text = await metrics();
      expect(sample(text, "outpost_collector_chunk_cache_chunks")).toBeGreaterThanOrEqual(2);
      expect(sample(text, "outpost_collector_chunk_cache_bytes")).toBeGreaterThan(6000 * 6);
      expect(sample(text, "outpost_collector_chunk_cache_bytes")).toBeLessThanOrEqual(1024 ** 2);
      // Each series' chunks read once, from metrics.db: none was in the cache yet.
      expect(sample(text, "outpost_collector_chunk_reads_database_total")).toBeGreaterThanOrEqual(2);
      expect(sample(text, "outpost_collector_chunk_reads_cached_total")).toBe(0);
      expect(sample(text, "outpost_collector_chunk_reads_decoded_total")).toBe(0);
    } finally {
      await collector.stop("SIGTERM");
    }
  });

  it("refuses a size without a unit, in one line", async () => {
    const r = await run("collector", ["--data-dir", tempDir(), "--chunk-cache", "64", "--check-config"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n").at(-1)).toMatch(/--chunk-cache: "64" needs a unit, e.g. "64MiB"/);
  });
});
