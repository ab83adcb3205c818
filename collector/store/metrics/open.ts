import type { Logger } from "../../../src/log/logger.ts";
import type { StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { SqliteMetricsStore } from "./sqlite/store.ts";

export interface MetricsStoreConfig {
  dataDir: string;
  synchronous: "FULL" | "NORMAL";
  defaultRetentionDays: number;
  /** Bytes of chunks kept between reads (--chunk-cache). */
  chunkCacheBytes?: number;
  log: Logger;
  health?: StorageHealth;
}

/**
 * The collector's metrics store (SQLite is the default and, for now, only backend). It is
 * created closed: call `open()` to replay its log; `ready()` is false until then.
 */
export function createMetricsStore(cfg: MetricsStoreConfig): SqliteMetricsStore {
  return new SqliteMetricsStore(cfg);
}
