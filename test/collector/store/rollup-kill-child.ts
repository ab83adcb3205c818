/**
 * Rolls up a metrics store's chunks one small batch at a time, saying "rolling" before each,
 * until the parent (metrics-rollups-kill.test.ts) kills it with SIGKILL.
 */
import { openSqliteMetricsStore } from "../../../collector/store/metrics/sqlite/store.ts";
import { DEFAULT_ROLLUP_TIERS, parseRollupTiers } from "../../../src/metrics/rollup/tiers.ts";

const s = await openSqliteMetricsStore({ dataDir: process.argv[2]!, synchronous: "FULL", maintenanceIntervalMs: 3_600_000, rollupTiers: parseRollupTiers(DEFAULT_ROLLUP_TIERS), rollupBatchPoints: 3000 });
const rollups = (s as unknown as { s: { rollups: { round(budget: number, force: boolean): void } } }).s.rollups;
for (;;) {
  process.stdout.write("rolling\n");
  rollups.round(0.001, true);
  await Bun.sleep(0);
}
