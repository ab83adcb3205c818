import type { SQL } from "bun";
import type { Logger } from "../../../src/log/logger.ts";
import type { RollupTier } from "../../../src/metrics/rollup/tiers.ts";
import type { HeldPartitions } from "../../../src/partitions.ts";
import type { StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { PostgresMetricsStore } from "./postgres/store.ts";
import { SqliteMetricsStore } from "./sqlite/store.ts";
import type { RollupCompute } from "./sqlite/rollup-remote.ts";
import type { MetricsMemory, MetricsStore } from "./types.ts";

export interface MetricsStoreConfig {
  dataDir: string;
  synchronous: "FULL" | "NORMAL";
  defaultRetentionDays: number;
  /** Bytes of chunks kept between reads (--chunk-cache; SQLite only). */
  chunkCacheBytes?: number;
  log: Logger;
  health?: StorageHealth;
  /** Told of the bytes sealing leaves as garbage, chunk by chunk (SQLite only; for the memory governor). */
  released?: (bytes: number) => void;
  /** With --database-url: the metrics live in this database (migrated before), not in the data folder. */
  sql?: SQL;
  /** With leases (several collectors on the database): sealing and retention of the partitions held only. */
  ownership?: HeldPartitions;
  /** Rollup tiers to keep (docs/storage.md, "Rollup tiers"); absent: none. */
  rollupTiers?: readonly RollupTier[];
  /** The SQLite roller's steps in another thread (collector/metrics/rollup-offload.ts). */
  rollupCompute?: RollupCompute;
  /** --seal-on-stop: seal every head and empty the ingest log at close (SQLite only). */
  sealOnClose?: boolean;
}

/** The collector's metrics store, either backend: opened by `open()`, which SQLite needs to replay its log. */
export interface OpenableMetricsStore extends MetricsStore {
  open(): Promise<void>;
  /** What the store holds in memory (SQLite: heads and chunk cache; PostgreSQL holds nothing). */
  memory?(): MetricsMemory;
}

/**
 * The collector's metrics store: in PostgreSQL with --database-url, else SQLite in the data
 * folder. It is created closed: call `open()`; `ready()` is false until then.
 */
export function createMetricsStore(cfg: MetricsStoreConfig): OpenableMetricsStore {
  if (cfg.sql) return new PostgresMetricsStore({ sql: cfg.sql, defaultRetentionDays: cfg.defaultRetentionDays, log: cfg.log, health: cfg.health, ownership: cfg.ownership, rollupTiers: cfg.rollupTiers });
  return new SqliteMetricsStore(cfg);
}
