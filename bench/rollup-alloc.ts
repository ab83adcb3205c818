#!/usr/bin/env bun
/**
 * The roller's allocation (issue 28, docs/storage.md "Rollup tiers"): peers.ts' workload (SERIES
 * series × POINTS points at 10 s, value (s mod 100) + 10·sin(j/10)) written into a store in
 * process, 100 points a series at a time, and rolled up every WINDOW points a series (2,000:
 * about a chunk, as during ingest). Prints the bytes the allocator handed out during the rolls
 * (`bun:jsc` heapStats().mimalloc: every malloc, freed at once or at a collection), their wall
 * time, the process' peak resident size, and a hash of every stored rollup block (the clock is
 * fixed, so two trees can be compared block for block). TREE=<checkout> measures another tree.
 */
import { Database } from "bun:sqlite";
import { heapStats } from "bun:jsc";
import { fmt, tempDir } from "./_lib.ts";

const TREE = process.env.TREE ?? `${import.meta.dir}/..`;
const SERIES = Number(process.env.SERIES ?? 1000);
const POINTS = Number(process.env.POINTS ?? 10_000);
const WINDOW = Number(process.env.WINDOW ?? 2000);
const TICK = 100;
const DAY = 86_400_000;

const { openSqliteMetricsStore } = await import(`${TREE}/collector/store/metrics/sqlite/store.ts`);
const { DEFAULT_ROLLUP_TIERS, parseRollupTiers } = await import(`${TREE}/src/metrics/rollup/tiers.ts`);
const NOW = Math.floor(Date.now() / DAY) * DAY;
const START = NOW - 60_000 - POINTS * 10_000;
const dir = tempDir("outpost-rollup-alloc-");
const s = await openSqliteMetricsStore({ dataDir: dir.path, synchronous: "OFF", maintenanceIntervalMs: 3_600_000, rollupTiers: parseRollupTiers(DEFAULT_ROLLUP_TIERS), now: () => NOW });
const ids = Array.from({ length: SERIES }, (_, k) => `m${k}`);
const allocated = () => {
  // Bun's heapStats carries mimalloc's statistics beside the engine's (not in its types).
  const m = (heapStats() as unknown as { mimalloc: { malloc_normal: { total: number }; malloc_huge: { total: number } } }).mimalloc;
  return m.malloc_normal.total + m.malloc_huge.total;
};
let rollMs = 0;
let rollBytes = 0;
for (let j0 = 0; j0 < POINTS; j0 += TICK) {
  const ts = new Float64Array(SERIES * TICK);
  const vals = new Float64Array(SERIES * TICK);
  for (let k = 0; k < SERIES; k++) {
    for (let j = 0; j < TICK; j++) {
      ts[k * TICK + j] = START + (j0 + j) * 10_000;
      vals[k * TICK + j] = (k % 100) + Math.sin((j0 + j) / 10) * 10;
    }
  }
  await s.writeColumns("t", { type: "gauge", ids, counts: new Uint32Array(SERIES).fill(TICK), ts, values: vals, tags: [] });
  s.flushDue();
  if ((j0 + TICK) % WINDOW === 0 || j0 + TICK >= POINTS) {
    if (j0 + TICK >= POINTS) s.flushDue(true);
    const a0 = allocated();
    const t0 = performance.now();
    s.rollUp();
    rollMs += performance.now() - t0;
    rollBytes += allocated() - a0;
  }
}
await s.close();
const db = new Database(`${dir.path}/metrics.db`, { readonly: true });
const h = new Bun.CryptoHasher("sha256");
let blocks = 0;
for (const r of db.query("SELECT sid, step, block_start, body FROM rollups ORDER BY sid, step, block_start").all() as { sid: number; step: number; block_start: number; body: Uint8Array }[]) {
  h.update(`${r.sid} ${r.step} ${r.block_start} `);
  h.update(r.body);
  blocks++;
}
db.close();
dir.remove();
const peak = Number(/VmHWM:\s+(\d+)/.exec(await Bun.file("/proc/self/status").text())![1]) / 1024;
console.log(`${fmt(SERIES * POINTS)} points, rolled every ${WINDOW} points a series: rolls ${(rollMs / 1000).toFixed(2)} s, ${fmt(rollBytes / 1e6)} MB allocated meanwhile; peak RSS ${fmt(peak)} MB; ${blocks} blocks, sha256 ${h.digest("hex").slice(0, 16)}`);
