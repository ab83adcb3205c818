import type { MetricFilter, MetricsReader, NumericSeries, PointColumns, RawQuery, SeriesEntry, SeriesParts, SeriesReader } from "../../../src/metrics/reader.ts";

export type { MetricFilter, MetricsReader, NumericSeries, PointColumns, RawQuery, SeriesEntry, SeriesParts, SeriesReader };
import type { MetricDefinition, MetricType, MetricWrite, Tags, Tenant } from "../../../src/metrics/model.ts";
import type { WriteColumns } from "../../../src/metrics/write-columns.ts";

export type CreateResult = "created" | "exists" | "overwritten";

/**
 * Persistence of the metrics interface. Every method is scoped by tenant: no call can see
 * another tenant's data. Async so that a networked backend (PostgreSQL) fits the same shape.
 */
export interface MetricsStore extends MetricsReader {
  /** True once the store has opened and replayed its log. */
  ready(): boolean;

  createTenant(t: Tenant, overwrite: boolean): Promise<CreateResult>;
  listTenants(): Promise<Tenant[]>;
  getTenant(id: string): Promise<Tenant | undefined>;
  /** Removes the tenant, its metric definitions and all their points (nothing when it does not exist). */
  deleteTenant(id: string): Promise<void>;

  createMetric(def: MetricDefinition, overwrite: boolean): Promise<CreateResult>;
  /** Merges tags into the definition (creating it if needed). */
  updateTags(tenant: string, type: MetricType, id: string, tags: Tags): Promise<void>;
  /**
   * Sets the tags of many definitions in one commit, creating those that do not exist;
   * definitions whose tags already equal the given ones are left alone.
   */
  ensureTags(tenant: string, items: { type: MetricType; id: string; tags: Tags }[]): Promise<void>;
  /**
   * A number that changes whenever a metric's tags are changed or a metric (or tenant) is
   * deleted, so that a caller may skip ensureTags for series it ensured since (remote write).
   * Absent where several collectors share the definitions (PostgreSQL): one process cannot see
   * the others' changes.
   */
  definitionsVersion?(): number;
  /** Removes the named tags; false when the metric does not exist. */
  deleteTags(tenant: string, type: MetricType, id: string, names: string[]): Promise<boolean>;

  /**
   * Stores points durably (committed when the promise resolves). Idempotent per
   * (tenant, type, metric, timestamp): the last value written wins. Unknown metrics are
   * created implicitly.
   */
  write(tenant: string, writes: MetricWrite[]): Promise<void>;
  /** Like write, for a numeric body in column form (what the JSON worker thread parses). */
  writeColumns(tenant: string, cols: WriteColumns): Promise<void>;
  /** Removes a metric definition and all its points; false when it does not exist. */
  deleteMetric(tenant: string, type: MetricType, id: string): Promise<boolean>;

  close(): Promise<void>;
}

/** What a metrics store holds in memory, for the self-metrics. */
export interface MetricsMemory {
  /** Bytes of the chunk cache (at most --chunk-cache). */
  chunkCacheBytes: number;
  chunkCacheChunks: number;
  /** Reads of sealed chunks by queries since the start: answered by a decoded copy, by a cached block, from the database. */
  chunkReads: { decoded: number; block: number; database: number };
  /** Points in the heads, not yet sealed into chunks. */
  headPoints: number;
}
