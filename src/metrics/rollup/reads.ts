import type { MetricType } from "../model.ts";
import type { RollupKind, Rows } from "./rows.ts";
import { KIND_AVAILABILITY, KIND_COUNTER, KIND_NUMERIC } from "./rows.ts";
import type { RollupTier } from "./tiers.ts";

/** What the rollup tiers of one series hold for a query (docs/storage.md, "Rollup tiers"). */
export interface RollupSeriesInfo {
  /** The store's handle of the series: blocks are asked for by it. */
  handle: number;
  kind: RollupKind;
  /** [lo, hi) pairs, flat: where points are not in the tiers yet (unsealed, or sealed and not rolled up). */
  pending: number[];
}

export interface BlockRequest {
  handle: number;
  /** The tier's step (ms). */
  step: number;
  /** Block start (ms). */
  start: number;
}

/** The roller's work, for the self-metrics. */
export interface RollupStats {
  /** Sealed chunks not rolled up yet. */
  pendingChunks: number;
  /** Seconds since the tiers last held every sealed chunk (0 when they do now). */
  lagSeconds: number;
  chunksRolled: number;
  blocksWritten: number;
  /** Seconds spent rolling up (wall time of the rounds). */
  seconds: number;
  /** Blocks queries read (from the block cache or the database), and their stored bytes. */
  blocksRead: number;
  bytesRead: number;
}

/** Reading the rollup tiers of a store (either engine of the collector; docs/storage.md, "Rollup tiers"). */
export interface RollupReads {
  /** The tiers queries may read now, finest first (a tier being computed from a finer one is left out until it is complete). */
  readonly tiers: readonly RollupTier[];
  now(): number;
  /** Per series (of the tenant): undefined for unknown and string metrics. */
  series(tenant: string, refs: readonly { type: MetricType; id: string }[]): Promise<(RollupSeriesInfo | undefined)[]>;
  /** The stored blocks asked for, decoded (undefined where none is stored). */
  blocks(requests: readonly BlockRequest[]): Promise<(Rows | undefined)[]>;
  stats(): RollupStats;
}

/** The kind of rollup rows a metric type has; undefined for strings (no rollups). */
export function rollupKind(type: MetricType): RollupKind | undefined {
  if (type === "gauge") return KIND_NUMERIC;
  if (type === "counter") return KIND_COUNTER;
  if (type === "availability") return KIND_AVAILABILITY;
  return undefined;
}
