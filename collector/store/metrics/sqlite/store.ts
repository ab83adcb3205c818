import type { MetricDefinition, MetricType, MetricWrite, Tags, Tenant } from "../../../../src/metrics/model.ts";
import type { WriteColumns } from "../../../../src/metrics/write-columns.ts";
import type { ReadBuffers } from "../../../../src/promql/values.ts";
import type { CreateResult, MetricFilter, MetricsMemory, MetricsStore, NumericSeries, PointColumns, RawQuery, SeriesEntry, SeriesReader } from "../types.ts";
import * as defs from "./definitions.ts";
import { flushDue } from "./flush.ts";
import type { SeriesParts } from "../parts.ts";
import { seriesReader } from "./batch-reads.ts";
import { readParts, readRaw, readSeries } from "./reads.ts";
import { enforceRetention, maintain } from "./retention.ts";
import { seriesMeta, type SqliteMetricsStoreOptions, StoreState } from "./state.ts";
import { replayLog, write, writeColumns } from "./writes.ts";
import { SqliteRollups } from "./rollups.ts";
import { Interner } from "../../../../src/tags/interner.ts";
import type { RollupReads } from "../../../../src/metrics/rollup/reads.ts";

export type { SqliteMetricsStoreOptions } from "./state.ts";

/**
 * The SQLite metrics store. Writes commit one log row per batch and land in per-series
 * in-memory heads (writes.ts); a background flush turns heads into immutable chunks
 * (flush.ts) and deletes expired ones (retention.ts). Reads merge chunks and head (reads.ts).
 * Tenants and definitions: definitions.ts. See docs/storage.md.
 */
export class SqliteMetricsStore implements MetricsStore {
  private readonly s: StoreState;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(opts: SqliteMetricsStoreOptions) {
    this.s = new StoreState(opts);
  }

  /**
   * Loads definitions and replays the unflushed log, yielding to the event loop between
   * slices so the HTTP server can answer 503 meanwhile; the store is ready afterwards.
   */
  async open(): Promise<void> {
    const s = this.s;
    const started = s.now();
    for (const row of s.db.query("SELECT id, retentions FROM tenants").all() as { id: string; retentions: string | null }[]) {
      s.tenants.set(row.id, { id: row.id, retentions: row.retentions ? JSON.parse(row.retentions) : undefined });
    }
    const rows = s.db.query("SELECT sid, tenant, type, metric, tags, retention, min_ts, max_ts, flushed_seq FROM series").all() as {
      sid: number;
      tenant: string;
      type: MetricType;
      metric: string;
      tags: string | null;
      retention: number | null;
      min_ts: number | null;
      max_ts: number | null;
      flushed_seq: number;
    }[];
    // Each row brings its own copies of the tenant, the type and the tag values, which repeat
    // across series: kept once each (a restarted collector held 200,000 more strings than the
    // one that had ingested the same 50,000 remote-write series, issue 28).
    const one = new Interner();
    for (const r of rows) {
      if (r.sid >= s.nextSid) s.nextSid = r.sid + 1;
      const tags = r.tags ? one.values(JSON.parse(r.tags) as Tags) : undefined;
      s.register(seriesMeta(r.sid, one.of(r.tenant), one.of(r.type) as MetricType, r.metric, tags, r.min_ts ?? undefined, r.max_ts ?? undefined, r.flushed_seq));
      if (r.retention != null) s.setRetention(r.sid, r.retention);
    }
    s.legacyChunks = s.db.query("SELECT 1 FROM chunks WHERE expires_at IS NULL LIMIT 1").get() !== null;
    const replayed = await replayLog(s, started);
    if (s.log.damaged > 0) s.opts.log?.warn("the metrics ingest log had damaged records; they were skipped", { stretches: s.log.damaged, folder: s.log.dir });
    if (s.opts.rollupTiers) s.rollups = new SqliteRollups(s, s.opts.rollupTiers, undefined, s.opts.rollupCompute);
    s.isReady = true;
    s.opts.log?.info("metrics store open", {
      series: s.bySid.size,
      replayedBatches: replayed.batches,
      replayedPoints: replayed.points,
      ms: s.now() - started,
    });
    this.timer = setInterval(() => maintain(s), s.opts.maintenanceIntervalMs);
    this.timer.unref?.();
  }

  ready(): boolean {
    return this.s.isReady;
  }

  async createTenant(t: Tenant, overwrite: boolean): Promise<CreateResult> {
    return this.durable(defs.createTenant(this.s, t, overwrite));
  }

  async listTenants(): Promise<Tenant[]> {
    return defs.listTenants(this.s);
  }

  async getTenant(id: string): Promise<Tenant | undefined> {
    return this.s.tenants.get(id);
  }

  async deleteTenant(id: string): Promise<void> {
    return this.durable(defs.deleteTenant(this.s, id));
  }

  async createMetric(def: MetricDefinition, overwrite: boolean): Promise<CreateResult> {
    return this.durable(defs.createMetric(this.s, def, overwrite));
  }

  async getMetric(tenant: string, type: MetricType, id: string): Promise<MetricDefinition | undefined> {
    const m = this.s.find(tenant, type, id);
    return m ? defs.definition(this.s, m) : undefined;
  }

  async findMetrics(tenant: string, filter: MetricFilter = {}): Promise<MetricDefinition[]> {
    return defs.findMetrics(this.s, tenant, filter);
  }

  async listSeries(tenant: string): Promise<SeriesEntry[]> {
    return defs.listSeries(this.s, tenant);
  }

  async updateTags(tenant: string, type: MetricType, id: string, tags: Tags): Promise<void> {
    return this.durable(defs.updateTags(this.s, tenant, type, id, tags));
  }

  /**
   * Not waited on to be on disk: the points written next (remote write, Influx) are, and their
   * sync covers these tags too (the log is written in order); tags lost with unacknowledged
   * points are set again when those are resent.
   */
  async ensureTags(tenant: string, items: { type: MetricType; id: string; tags: Tags }[]): Promise<void> {
    defs.ensureTags(this.s, tenant, items);
  }

  definitionsVersion(): number {
    return this.s.definitionsVersion;
  }

  seriesVersion(): number {
    return this.s.seriesVersion;
  }

  async deleteTags(tenant: string, type: MetricType, id: string, names: string[]): Promise<boolean> {
    return this.durable(defs.deleteTags(this.s, tenant, type, id, names));
  }

  /** Removes a metric and all its points (post-0.16 DELETE /{type}/{id}). */
  async deleteMetric(tenant: string, type: MetricType, id: string): Promise<boolean> {
    return this.durable(defs.deleteMetric(this.s, tenant, type, id));
  }

  /** `v` once what was committed before is on disk (synchronous FULL; wal-sync.ts). */
  private async durable<T>(v: T): Promise<T> {
    await this.s.walSync?.afterCommit();
    return v;
  }

  write(tenant: string, writes: MetricWrite[]): Promise<void> {
    return write(this.s, tenant, writes);
  }

  writeColumns(tenant: string, cols: WriteColumns): Promise<void> {
    return writeColumns(this.s, tenant, cols);
  }

  async readRaw(tenant: string, type: MetricType, id: string, q: RawQuery): Promise<PointColumns> {
    this.s.lastReadAt = performance.now();
    return readRaw(this.s, tenant, type, id, q);
  }

  async readSeries(tenant: string, type: MetricType, id: string, start: number, end: number, buffers?: ReadBuffers): Promise<NumericSeries | undefined> {
    this.s.lastReadAt = performance.now();
    return readSeries(this.s, tenant, type, id, start, end, buffers);
  }

  async readParts(tenant: string, type: MetricType, id: string, start: number, end: number): Promise<SeriesParts | undefined> {
    this.s.lastReadAt = performance.now();
    return readParts(this.s, tenant, type, id, start, end);
  }

  seriesReader(tenant: string, series: readonly { type: MetricType; id: string }[], start: number, end: number): SeriesReader {
    this.s.lastReadAt = performance.now();
    return seriesReader(this.s, tenant, series, start, end);
  }

  /** The chunk lists kept between queries: chunks and series held, statements run (for tests). */
  chunkLists(): { chunks: number; series: number; lookups: number } {
    return { ...this.s.lists.size, lookups: this.s.lists.lookups };
  }

  /** Flushes heads that are big or old enough (all of them with `force`). */
  flushDue(force = false): void {
    flushDue(this.s, force);
  }

  /** Deletes expired chunks (and rollup blocks) now (the background task does it every minute). */
  enforceRetention(): void {
    enforceRetention(this.s);
    this.s.rollups?.retention();
  }

  /** The rollup tiers (with the rollupTiers option, once open). */
  get rollups(): RollupReads | undefined {
    return this.s.rollups;
  }

  /** Rolls up every sealed chunk now (the background task does it after each flush, a slice at a time). */
  rollUp(): void {
    this.s.rollups?.round(Number.POSITIVE_INFINITY, true);
  }

  /** Rolls up every sealed chunk as the background task does: in the roller's thread when the store has one (rollupCompute). */
  async catchUpRollups(): Promise<void> {
    await this.s.rollups?.catchUp();
  }

  async close(): Promise<void> {
    const s = this.s;
    if (this.timer) clearInterval(this.timer);
    // Groups awaiting the log's sync are applied first, so that the flushes below see them.
    await s.walSync?.drain();
    if (s.isReady) {
      try {
        // The heads stay in the log, to be rebuilt at the next start (with their age: the
        // records keep their arrival), as after a crash. Sealing them here made one small chunk
        // of every series at each restart, which the next start then rolled up: a third of its
        // main thread under remote write from 50,000 series (issue 28). Only what is due is sealed.
        flushDue(s, s.opts.sealOnClose === true);
        // Freed pages go back to the file system (databases created before version 3 have no
        // auto_vacuum, and there this does nothing).
        s.db.exec("PRAGMA incremental_vacuum");
        s.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        // Everything sealed (sealOnClose): the log's segments go, one empty one keeps the count.
        if (s.headPoints === 0) s.log.dropAll();
      } catch (e) {
        // Nothing is lost: the log keeps every unflushed point and the next open replays it.
        s.opts.log?.warn("metrics store closed without a final flush; the log will be replayed", { err: String(e) });
      }
    }
    s.isReady = false;
    s.opts.health?.unregister("metrics");
    s.walSync?.close();
    s.log.close();
    s.db.close();
  }

  /** Memory held, for the self-metrics (no query: served at every scrape). */
  memory(): MetricsMemory {
    const c = this.s.cache.size;
    const h = this.s.hot.size;
    return {
      chunkCacheBytes: c.bytes + h.bytes,
      chunkCacheChunks: c.entries + h.entries,
      chunkReads: { ...this.s.chunkReads },
      headPoints: this.s.headPoints,
    };
  }

  /** The heads' segment pool (head-segments.ts): segments reused, segments made new, bytes held for reuse. */
  headSegments(): { reused: number; made: number; pooledBytes: number } {
    const p = this.s.headSegments;
    return { reused: p.reused, made: p.made, pooledBytes: p.bytes };
  }

  /** Counts for self-metrics and tests. */
  stats(): { series: number; headPoints: number; logBatches: number; chunks: number } {
    const s = this.s;
    const c = s.db.query("SELECT (SELECT count(*) FROM ingest_log) AS l, (SELECT count(*) FROM chunks) AS c").get() as {
      l: number;
      c: number;
    };
    return { series: s.bySid.size, headPoints: s.headPoints, logBatches: c.l + s.log.records, chunks: c.c };
  }
}

/** Opens (creating if needed) the SQLite metrics store under `dataDir` and replays its log. */
export async function openSqliteMetricsStore(opts: SqliteMetricsStoreOptions): Promise<SqliteMetricsStore> {
  const s = new SqliteMetricsStore(opts);
  await s.open();
  return s;
}
