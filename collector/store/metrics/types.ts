import type { MetricDefinition, MetricType, MetricWrite, Tags, Tenant } from "../../../src/metrics/model.ts";
import type { WriteColumns } from "../../../src/metrics/write-columns.ts";
import type { ReadBuffers } from "../../../src/promql/values.ts";
import type { SeriesParts } from "./parts.ts";

/** Points of one series in column form, sorted by the requested order. */
export interface PointColumns {
  ts: number[];
  /** Numbers for gauge/counter, "up"/"down"/"unknown" for availability, text for strings. */
  values: (number | string)[];
  /** Data-point tags, index-aligned with ts; absent when no point has tags. */
  tags?: (Tags | undefined)[];
}

/** Numeric points of one series, ascending by timestamp (availability as numeric codes). */
export interface NumericSeries {
  ts: Float64Array;
  values: Float64Array;
  tags?: (Tags | undefined)[];
}

export interface RawQuery {
  /** Inclusive, ms. */
  start: number;
  /** Exclusive, ms. */
  end: number;
  order: "asc" | "desc";
  /** Absent or <= 0: no limit. */
  limit?: number;
}

export interface MetricFilter {
  type?: MetricType;
  /** Exact ids to return (others ignored). */
  ids?: string[];
}

/** What listing series needs of a definition, without reading any points. */
export interface SeriesEntry {
  type: MetricType;
  id: string;
  tags?: Tags;
  /** Stored point span (before retention), when the series has points. */
  minTs?: number;
  maxTs?: number;
}

export type CreateResult = "created" | "exists" | "overwritten";

/**
 * Persistence of the metrics interface. Every method is scoped by tenant: no call can see
 * another tenant's data. Async so that a networked backend (PostgreSQL) fits the same shape.
 */
export interface MetricsStore {
  /** True once the store has opened and replayed its log. */
  ready(): boolean;

  createTenant(t: Tenant, overwrite: boolean): Promise<CreateResult>;
  listTenants(): Promise<Tenant[]>;
  getTenant(id: string): Promise<Tenant | undefined>;
  /** Removes the tenant, its metric definitions and all their points (nothing when it does not exist). */
  deleteTenant(id: string): Promise<void>;

  createMetric(def: MetricDefinition, overwrite: boolean): Promise<CreateResult>;
  getMetric(tenant: string, type: MetricType, id: string): Promise<MetricDefinition | undefined>;
  findMetrics(tenant: string, filter?: MetricFilter): Promise<MetricDefinition[]>;
  /** Every series of the tenant, unordered, from memory (the Prometheus API's series index). */
  /**
   * Every series of the tenant. The SQLite store answers its own objects, whose spans follow
   * the writes (as seriesVersion tells): read them, never change them.
   */
  listSeries(tenant: string): Promise<SeriesEntry[]>;
  /**
   * A number that changes whenever a series is added or removed, or its tags change, so that a
   * caller holding listSeries' (live) entries may skip asking again (the Prometheus API's label
   * index). Absent where the entries are copies, or other collectors change them (PostgreSQL).
   */
  seriesVersion?(): number;
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
  /** Points in [start, end), retention applied, in the requested order and limit. */
  readRaw(tenant: string, type: MetricType, id: string, q: RawQuery): Promise<PointColumns>;
  /**
   * Numeric points in [start, end), ascending, retention applied; undefined for unknown or
   * string metrics. With `buffers` (a scan of many series), the columns may be views of a
   * buffer from it (see ReadBuffers; a backend may ignore it).
   */
  readSeries(tenant: string, type: MetricType, id: string, start: number, end: number, buffers?: ReadBuffers): Promise<NumericSeries | undefined>;
  /**
   * The same points as readSeries, undecoded, for decoding in a worker thread (parts.ts).
   * Optional: a store without it has queries evaluated on one thread.
   */
  readParts?(tenant: string, type: MetricType, id: string, start: number, end: number): Promise<SeriesParts | undefined>;
  /**
   * Reads of `series` over [start, end) as readSeries and readParts answer them, by index; the
   * store may look up what they need for several series at a time, so reading them in about
   * the order given is cheapest. Optional: without it, each series is read on its own.
   */
  seriesReader?(tenant: string, series: readonly { type: MetricType; id: string }[], start: number, end: number): SeriesReader;
  /** Removes a metric definition and all its points; false when it does not exist. */
  deleteMetric(tenant: string, type: MetricType, id: string): Promise<boolean>;

  close(): Promise<void>;
}

/** See MetricsStore.seriesReader. */
export interface SeriesReader {
  readSeries(i: number, buffers?: ReadBuffers): Promise<NumericSeries | undefined>;
  readParts(i: number): Promise<SeriesParts | undefined>;
}

/** What a metrics store holds in memory, for the self-metrics. */
export interface MetricsMemory {
  /** Bytes of the chunk cache (at most --chunk-cache). */
  chunkCacheBytes: number;
  chunkCacheChunks: number;
  /** Points in the heads, not yet sealed into chunks. */
  headPoints: number;
}
