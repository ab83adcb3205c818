#!/usr/bin/env bun
/**
 * The roller through a day (issue 28, docs/storage.md "Blocks in segments"): SERIES gauge
 * series (1,000) of a point every 10 s are written into a store in process, a simulated day,
 * and rolled up after every 10 minutes of points (a window as slow series get under steady
 * ingest), on the store's thread. Prints, for each four hours of the day, the mean time of a
 * series' step, then the day's mean and the process' CPU (user and system) and minor page
 * faults over the rolls. A step rewrites the blocks its points fall in, the finest tier's a day
 * long: what it costs by evening is the figure to watch. TREE=<checkout> measures another tree.
 */
import { resourceUsage } from "node:process";
import { fmt, tempDir } from "./_lib.ts";

const TREE = process.env.TREE ?? `${import.meta.dir}/..`;
const SERIES = Number(process.env.SERIES ?? 1000);
const STEP_S = 10;
/** Points a series between two windows: 10 minutes. */
const WINDOW = 60;
const WINDOWS = 144;
const DAY = 86_400_000;

const { openSqliteMetricsStore } = await import(`${TREE}/collector/store/metrics/sqlite/store.ts`);
const { DEFAULT_ROLLUP_TIERS, parseRollupTiers } = await import(`${TREE}/src/metrics/rollup/tiers.ts`);

const dir = tempDir("outpost-rollup-day-");
// Midnight two days ago: the whole day is in the past, and the clock follows the points.
const START = Math.floor(Date.now() / DAY) * DAY - 2 * DAY;
let clock = START;
const s = await openSqliteMetricsStore({ dataDir: dir.path, synchronous: "OFF", maintenanceIntervalMs: 3_600_000, rollupTiers: parseRollupTiers(DEFAULT_ROLLUP_TIERS), now: () => clock, chunkPoints: WINDOW });
const ids = Array.from({ length: SERIES }, (_, k) => `m${k}`);
const counts = new Uint32Array(SERIES).fill(WINDOW);
let rollMs = 0;
let band = 0;
let user = 0;
let system = 0;
let faults = 0;
console.log(`${fmt(SERIES)} series, a point every ${STEP_S} s, rolled up every ${(WINDOW * STEP_S) / 60} minutes through a day`);
for (let w = 0; w < WINDOWS; w++) {
  const ts = new Float64Array(SERIES * WINDOW);
  const vals = new Float64Array(SERIES * WINDOW);
  for (let k = 0; k < SERIES; k++) {
    for (let j = 0; j < WINDOW; j++) {
      const i = w * WINDOW + j;
      ts[k * WINDOW + j] = START + i * STEP_S * 1000;
      vals[k * WINDOW + j] = (k % 100) + Math.sin(i / 10) * 10 + (i % 7);
    }
  }
  clock = START + (w + 1) * WINDOW * STEP_S * 1000 + 1000;
  await s.writeColumns("t", { type: "gauge", ids, counts, ts, values: vals, tags: [] });
  s.flushDue(true);
  const r0 = resourceUsage();
  const t0 = performance.now();
  s.rollUp();
  const ms = performance.now() - t0;
  const r1 = resourceUsage();
  user += r1.userCPUTime - r0.userCPUTime;
  system += r1.systemCPUTime - r0.systemCPUTime;
  faults += r1.minorPageFault - r0.minorPageFault;
  rollMs += ms;
  band += ms;
  if (w % 24 === 23) {
    console.log(`  windows to ${(((w + 1) * WINDOW * STEP_S) / 3600).toFixed(0).padStart(2)} h: ${fmt((band * 1000) / SERIES / 24)} µs a series' step`);
    band = 0;
  }
}
await s.close();
dir.remove();
const steps = SERIES * WINDOWS;
console.log(
  `the day: ${fmt((rollMs * 1000) / steps)} µs a step (${(rollMs / 1000).toFixed(1)} s for ${fmt(steps)} steps); CPU ${(user / 1e6).toFixed(1)} user + ${(system / 1e6).toFixed(1)} system s, ${fmt(faults)} minor faults`,
);
