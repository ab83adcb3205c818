import type { Telemetry } from "../src/telemetry/registry.ts";
import type { RollupStats } from "../src/metrics/rollup/reads.ts";

/**
 * The rollup tiers' self-metrics (docs/operations.md, "Self-monitoring"): how far behind the
 * sealed chunks they are, and the work the roller did. `stats` answers undefined until the
 * store is open (or when it keeps no tiers).
 */
export function registerRollupMetrics(t: Telemetry, stats: () => RollupStats | undefined): void {
  const read = (f: (s: RollupStats) => number) => () => {
    const s = stats();
    return s ? f(s) : 0;
  };
  t.gauge("outpost_collector_rollup_pending_chunks", "sealed metric chunks not yet in the rollup tiers (queries read raw points where they lie)", read((s) => s.pendingChunks));
  t.gauge("outpost_collector_rollup_lag_seconds", "seconds since the rollup tiers last held every sealed chunk (0 while they do)", read((s) => s.lagSeconds));
  t.counterFrom("outpost_collector_rollup_chunks_total", "sealed metric chunks rolled up into the tiers", read((s) => s.chunksRolled));
  t.counterFrom("outpost_collector_rollup_blocks_written_total", "rollup blocks written (a block: one series, one tier, a span of buckets)", read((s) => s.blocksWritten));
  t.counterFrom("outpost_collector_rollup_seconds_total", "seconds spent rolling chunks up into the tiers", read((s) => s.seconds));
  t.counterFrom("outpost_collector_rollup_blocks_read_total", "rollup blocks queries read (cached or from the database)", read((s) => s.blocksRead));
  t.counterFrom("outpost_collector_rollup_read_bytes_total", "stored bytes of the rollup blocks queries read", read((s) => s.bytesRead));
}
