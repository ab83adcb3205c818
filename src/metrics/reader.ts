/**
 * The read side of a metrics store: what the read routes of the metrics interface and the
 * Prometheus query API need (src/http/metrics/, src/http/prometheus/). The collector's stores
 * implement it (collector/store/metrics/types.ts, MetricsStore), and so does the agent's local
 * history (agent/history/), so both answer reads with the same code. Every method is scoped by
 * tenant.
 */
import type { MetricDefinition, MetricType, Tags } from "./model.ts";
import type { ReadBuffers } from "../promql/values.ts";
import type { RollupReads } from "./rollup/reads.ts";

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


/** See MetricsReader.seriesReader. */
export interface SeriesReader {
  readSeries(i: number, buffers?: ReadBuffers): Promise<NumericSeries | undefined>;
  readParts(i: number): Promise<SeriesParts | undefined>;
}


/**
 * A numeric series' stored points in [start, end) as the store keeps them (compressed blocks
 * are not decoded), to be decoded elsewhere — in a worker thread evaluating part of a PromQL
 * query. Plain data: it survives postMessage (collector/store/metrics/parts.ts decodes it).
 */
export interface SeriesParts {
  /** ms, inclusive */
  start: number;
  /** ms, exclusive */
  end: number;
  /**
   * In write order (sealed chunks, then the head's points): codec blocks of n points, or
   * columns. `own`: the columns are this read's copy, ts then nums filling one buffer of their
   * own, which the reader may take (promql-wire.ts transfers it instead of copying it again).
   */
  pieces: ({ block: Uint8Array; n: number } | { ts: Float64Array; nums: Float64Array; own?: boolean })[];
}

export interface MetricsReader {
  getMetric(tenant: string, type: MetricType, id: string): Promise<MetricDefinition | undefined>;
  findMetrics(tenant: string, filter?: MetricFilter): Promise<MetricDefinition[]>;
  /**
   * Every series of the tenant, unordered (the Prometheus API's series index). The SQLite store
   * answers its own objects, whose spans follow the writes (as seriesVersion tells): read them,
   * never change them.
   */
  listSeries(tenant: string): Promise<SeriesEntry[]>;
  /**
   * A number that changes whenever a series is added or removed, or its tags change, so that a
   * caller holding listSeries' (live) entries may skip asking again (the Prometheus API's label
   * index). Absent where the entries are copies, or other collectors change them (PostgreSQL).
   */
  seriesVersion?(): number;
  /** Points in [start, end), retention applied, in the requested order and limit. */
  readRaw(tenant: string, type: MetricType, id: string, q: RawQuery): Promise<PointColumns>;
  /**
   * Numeric points in [start, end), ascending, retention applied; undefined for unknown or
   * string metrics. With `buffers` (a scan of many series), the columns may be views of a
   * buffer from it (see ReadBuffers; a backend may ignore it).
   */
  readSeries(tenant: string, type: MetricType, id: string, start: number, end: number, buffers?: ReadBuffers): Promise<NumericSeries | undefined>;
  /**
   * The same points as readSeries, undecoded, for decoding in a worker thread.
   * Optional: a store without it has queries evaluated on one thread.
   */
  readParts?(tenant: string, type: MetricType, id: string, start: number, end: number): Promise<SeriesParts | undefined>;
  /**
   * Reads of `series` over [start, end) as readSeries and readParts answer them, by index; the
   * store may look up what they need for several series at a time, so reading them in about
   * the order given is cheapest. Optional: without it, each series is read on its own.
   */
  seriesReader?(tenant: string, series: readonly { type: MetricType; id: string }[], start: number, end: number): SeriesReader;
  /** The rollup tiers, when the store keeps them (docs/storage.md, "Rollup tiers"). */
  readonly rollups?: RollupReads;
}
