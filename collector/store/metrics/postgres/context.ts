import type { SQL } from "bun";
import type { Logger } from "../../../../src/log/logger.ts";
import type { HeldPartitions } from "../../../../src/partitions.ts";
import type { RollupTier } from "../../../../src/metrics/rollup/tiers.ts";
import { DAY_MS, DEFAULT_RETENTION_DAYS } from "../../../../src/metrics/model.ts";
import { numbered } from "../../../../src/postgres/connect.ts";
import { reportingFailuresAsync, type StorageHealth } from "../../../../src/sqlite/storage-health.ts";

export interface PostgresMetricsStoreOptions {
  /** The collector's pool; the store does not close it. Its tables are migrated (METRICS_PG) before. */
  sql: SQL;
  defaultRetentionDays?: number;
  log?: Logger;
  /** A series with this many unsealed points is sealed into chunks. */
  chunkPoints?: number;
  /** A series whose oldest unsealed point was written this long ago is sealed. */
  headMaxAgeMs?: number;
  /** Period of the background sealing (retention runs every minute). */
  maintenanceIntervalMs?: number;
  /** Told of failed writes (server down, disk full), and probes the database until it takes writes again. */
  health?: StorageHealth;
  /**
   * Several collectors on the database: this one seals and expires only the series of the
   * partitions it holds the lease of (their tenants'). Without, it does every partition.
   */
  ownership?: HeldPartitions;
  /** Small numeric blocks stored raw (small-block.ts); false writes codec blocks only (for measuring). */
  smallRawBlocks?: boolean;
  /** Rollup tiers (docs/storage.md, "Rollup tiers"); absent: none computed, none read. */
  rollupTiers?: readonly RollupTier[];
  now?: () => number;
}

type Param = string | number | null | Uint8Array;

/** What the parts of the PostgreSQL metrics store share: the pool, the settings, helpers. */
export class PgContext {
  readonly sql: SQL;
  readonly log: Logger | undefined;
  readonly health: StorageHealth | undefined;
  readonly now: () => number;
  readonly defaultRetentionDays: number;
  readonly chunkPoints: number;
  readonly headMaxAgeMs: number;
  readonly maintenanceIntervalMs: number;
  readonly smallRawBlocks: boolean;
  /** Chunks and blocks found corrupt, "chunk 12" (logged once each). */
  readonly corruptChunks = new Set<string>();

  constructor(o: PostgresMetricsStoreOptions) {
    this.sql = o.sql;
    this.log = o.log;
    this.health = o.health;
    this.now = o.now ?? Date.now;
    this.defaultRetentionDays = o.defaultRetentionDays ?? DEFAULT_RETENTION_DAYS;
    this.chunkPoints = o.chunkPoints ?? 1024;
    this.headMaxAgeMs = o.headMaxAgeMs ?? 3_600_000;
    this.maintenanceIntervalMs = o.maintenanceIntervalMs ?? 5000;
    this.smallRawBlocks = o.smallRawBlocks ?? true;
  }

  get defaultRetentionMs(): number {
    return this.defaultRetentionDays * DAY_MS;
  }

  /** Rows of a statement written with `?` placeholders. */
  rows<R>(text: string, params: readonly Param[] = [], db: SQL = this.sql): Promise<R[]> {
    return db.unsafe(numbered(text), params as Param[]) as Promise<R[]>;
  }

  /** A change, its failure reported to the storage health. */
  writing<T>(fn: () => Promise<T>): Promise<T> {
    return reportingFailuresAsync(this.health, "metrics", fn);
  }

  /** One transaction, its failure reported. */
  tx<T>(fn: (t: SQL) => Promise<T>): Promise<T> {
    return this.writing(() => this.sql.begin((t) => fn(t)) as Promise<T>);
  }
}

/** A PostgreSQL array literal of numbers (NaN and ±Infinity are valid float8 input). */
export function numArray(a: ArrayLike<number>): string {
  return `{${Array.from(a, (n) => String(n)).join(",")}}`;
}

/** A PostgreSQL array literal of texts, null as NULL. */
export function textArray(a: readonly (string | null)[]): string {
  return `{${a.map((s) => (s === null ? "NULL" : `"${s.replace(/[\\"]/g, "\\$&")}"`)).join(",")}}`;
}
