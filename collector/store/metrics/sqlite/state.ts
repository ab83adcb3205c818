import { ByIdTable } from "../../../../src/codec/by-id-table.ts";
import type { Database, Statement } from "bun:sqlite";
import { closeSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../../../src/log/logger.ts";
import { DAY_MS, DEFAULT_RETENTION_DAYS, type MetricType, type MetricWrite, type Tags, type Tenant } from "../../../../src/metrics/model.ts";
import { migrate } from "../../../../src/sqlite/migrations.ts";
import { openDatabase } from "../../../../src/sqlite/open.ts";
import { reportingFailures, type StorageHealth } from "../../../../src/sqlite/storage-health.ts";
import { ChunkCache } from "../chunk-cache.ts";
import type { WriteColumns } from "../../../../src/metrics/write-columns.ts";
import { ChunkLists } from "./chunk-lists.ts";
import type { SeriesHead } from "../head.ts";
import type { RollupTier } from "../../../../src/metrics/rollup/tiers.ts";
import type { SqliteRollups } from "./rollups.ts";
import type { RollupCompute } from "./rollup-remote.ts";
import { HeadSegments } from "../head-segments.ts";
import { DirtySet } from "../dirty-set.ts";
import { FirstSeqs } from "../first-seqs.ts";
import { FlushPlan } from "./flush-plan.ts";
import { ListedSeries } from "../listed-series.ts";
import { SidIndex } from "../sid-index.ts";
import { LogScratch } from "../log-body.ts";
import { METRICS_DB } from "./schema.ts";
import { IngestLog } from "./ingest-log.ts";
import { syncFile, WalSync } from "./wal-sync.ts";

export interface SqliteMetricsStoreOptions {
  dataDir: string;
  synchronous?: "FULL" | "NORMAL";
  defaultRetentionDays?: number;
  log?: Logger;
  /** A head reaching this many points is flushed into a chunk. */
  chunkPoints?: number;
  /** A head whose oldest point arrived this long ago is flushed (bounds the log). */
  headMaxAgeMs?: number;
  /**
   * Seal every head into chunks at close and empty the ingest log (for a program that does not
   * read the log, a downgrade). By default the heads stay in the log and the next open rebuilds them.
   */
  sealOnClose?: boolean;
  /** Above this many unflushed points in total, the largest heads are flushed first. */
  maxHeadPoints?: number;
  /** Memory for decoded chunks kept between reads, in bytes (0 disables). */
  chunkCacheBytes?: number;
  /**
   * Told, chunk by chunk, of the bytes a sealing round leaves as garbage (each block), so that the memory governor can collect during the round: the
   * heads of a steady workload fill, and are sealed, together (tens of MB at a time).
   */
  released?: (bytes: number) => void;
  /** Chunks whose place (series, range, expiry) is kept in memory between queries (chunk-lists.ts). */
  chunkListChunks?: number;
  /** Period of the background flush and retention work. */
  maintenanceIntervalMs?: number;
  /** Told of failed writes (full disk...), and probes this database until it takes writes again. */
  health?: StorageHealth;
  /** Rollup tiers (src/metrics/rollup/tiers.ts); absent: none computed and none read, [] deletes those stored. */
  rollupTiers?: readonly RollupTier[];
  /** Points of one series one roller transaction takes at most (a million; fewer in tests that interrupt it). */
  rollupBatchPoints?: number;
  /** Computes the roller's steps in another thread (collector/metrics/rollup-offload.ts); absent: on the store's. */
  rollupCompute?: RollupCompute;
  /** Size past which the ingest log starts a new segment file (ingest-log.ts; small in tests). */
  logSegmentBytes?: number;
  /** Syncs the ingest log after appends with synchronous FULL (default fs.fdatasync; tests hold it back). */
  syncLog?: (fd: number, done: (e: Error | null) => void) => void;
  now?: () => number;
}

/**
 * SQLite's page cache for metrics.db, in KiB. Chunks are cached compressed by the store itself
 * (--chunk-cache), series are loaded at the open and the heads and chunk lists are in memory, so
 * SQLite's cache holds pages a write touches once (a new series' rows, a flush's index entries)
 * and chunk pages the chunk cache holds again. 64 MiB of it cost 50–80 MB of RSS under ingest
 * (the ingest log was a table then); at 16 MiB it was full within the first seconds of remote
 * write from 50,000 new series, 13–17 MB of the live peak (issue 28, docs/storage.md thirty-first
 * part).
 */
export const METRICS_DB_CACHE_KIB = 4096;

/**
 * A decoded copy read again within this many ms is not thrown out for a newcomer (chunk-cache.ts):
 * about two refreshes of a dashboard that refreshes every 30 s, and many of a query rerun.
 */
export const KEEP_DECODED_READ_WITHIN_MS = 60_000;

/**
 * A series' object, every field there from the start and in one order: the engine then gives
 * all of them one shape and keeps every field in the object itself. Fields added later (the
 * head, at its first point) went to a second allocation, and remote write's ingest read the
 * series of each request through both (issue 28). The fields a write reads come first, so that
 * they share the object's first cache lines. Twelve fields at most: the engine's object for
 * twelve is 112 bytes, for thirteen 160 (what a series needs rarely is kept beside it: its own
 * retention in the state's `retentions`, the log batch of its head's first point in the head).
 */
export function seriesMeta(
  sid: number,
  tenant: string,
  type: MetricType,
  id: string,
  tags: Tags | undefined,
  minTs: number | undefined,
  maxTs: number | undefined,
  flushedSeq: number,
): SeriesMeta {
  // What every write reads first (a committed group's columns, then its apply), the rest after.
  return {
    listedAt: -1,
    sid,
    tenant,
    type,
    id,
    head: undefined,
    flushedSeq,
    minTs,
    maxTs,
    dirtyAt: -1,
    tags,
    chunkMaxTs: undefined,
  };
}

export interface SeriesMeta {
  sid: number;
  tenant: string;
  type: MetricType;
  id: string;
  /** A frozen object given to ensureTags is kept as it is: given again, it is known equal without comparing. */
  tags?: Tags;
  minTs?: number;
  maxTs?: number;
  flushedSeq: number;
  /**
   * Newest end of the series' chunks: null when it has none, undefined until a read needs it.
   * A read of a range that starts after it finds no chunk, so it skips the chunk index (most
   * reads of recent data are answered from the head in memory).
   */
  chunkMaxTs?: number | null;
  head?: SeriesHead;
  /** Its position in the store's dirty set, -1 when not in it (dirty-set.ts). */
  dirtyAt: number;
  /**
   * Its position in its tenant's list, -1 when not in it (listed-series.ts): a series is listed
   * exactly while registered, so a handle kept outside the registry (a writer's SeriesSlot, a
   * committed group awaiting its apply) holds only while this is 0 or more (see isLive).
   */
  listedAt: number;
}

/** Whether the series is registered (see listedAt). */
export const isLive = (m: SeriesMeta): boolean => m.listedAt >= 0;

/** A write waiting for the group commit: its points as objects or as columns. */
export interface PendingWrite {
  tenant: string;
  writes?: MetricWrite[];
  cols?: WriteColumns;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export const WINDOW_MS = DAY_MS;
export const isNumeric = (t: MetricType) => t !== "string";
export const key = (tenant: string, type: MetricType, id: string) => `${tenant}\u0000${type}\u0000${id}`;
export const kindKey = (tenant: string, type: MetricType) => `${tenant}\u0000${type}`;

/** Series whose chunk lists one statement looks up (selectChunkLists). */
export const LIST_BATCH = 32;

type ResolvedOptions = Required<Omit<SqliteMetricsStoreOptions, "log" | "now" | "health" | "released" | "syncLog" | "logSegmentBytes" | "rollupTiers" | "rollupBatchPoints" | "rollupCompute" | "sealOnClose">> & {
  log?: Logger;
  health?: StorageHealth;
  released?: (bytes: number) => void;
  rollupTiers?: readonly RollupTier[];
  rollupBatchPoints?: number;
  rollupCompute?: RollupCompute;
  sealOnClose?: boolean;
};

function prepare(db: Database) {
  const q = (sql: string) => db.prepare(sql);
  return {
    insertSeries: q("INSERT INTO series (sid, tenant, type, metric, tags, retention) VALUES (?, ?, ?, ?, ?, ?)"),
    insertTenant: q("INSERT OR IGNORE INTO tenants (id, retentions, created) VALUES (?, NULL, ?)"),
    upsertTenant: q(
      "INSERT INTO tenants (id, retentions, created) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET retentions = excluded.retentions",
    ),
    // Format 1: the points are one codec block in body; ts and vals (format 0's columns) stay empty.
    insertChunk: q("INSERT INTO chunks (sid, start_ts, end_ts, n, ts, vals, tags, expires_at, format, body) VALUES (?, ?, ?, ?, X'', X'', NULL, ?, 1, ?)"),
    // A chunk from before version 2 (no expires_at) expires by its newest timestamp, as it did.
    selectChunkIds: q(
      "SELECT cid FROM chunks WHERE sid = ? AND start_ts >= ? AND start_ts < ? AND end_ts >= ? AND coalesce(expires_at, end_ts + ?) > ? ORDER BY cid",
    ),
    // The chunk lists of LIST_BATCH series at once (padded with sid -1): one statement instead
    // of one a series; the expiry is checked by the reader (batch-reads.ts).
    selectChunkLists: q(
      `SELECT sid, cid, start_ts, end_ts, expires_at FROM chunks WHERE sid IN (${Array(LIST_BATCH).fill("?").join(", ")}) AND start_ts >= ? AND start_ts < ? ORDER BY sid, cid`,
    ),
    selectChunkMax: q("SELECT max(end_ts) AS m FROM chunks WHERE sid = ?"),
    selectChunk: q("SELECT format, n, body, ts, vals, tags FROM chunks WHERE cid = ?"),
    updateSeriesFlush: q("UPDATE series SET min_ts = ?, max_ts = ?, flushed_seq = ? WHERE sid = ?"),
    updateSeriesDef: q("UPDATE series SET tags = ?, retention = ? WHERE sid = ?"),
    deleteLogBefore: q("DELETE FROM ingest_log WHERE seq < ?"),
    deleteExpired: q("DELETE FROM chunks WHERE expires_at <= ? RETURNING sid"),
    deleteExpiredLegacy: q("DELETE FROM chunks WHERE sid = ? AND expires_at IS NULL AND end_ts + ? <= ?"),
    seriesBounds: q("SELECT min(start_ts) AS lo, max(end_ts) AS hi FROM chunks WHERE sid = ?"),
    updateSeriesBounds: q("UPDATE series SET min_ts = ?, max_ts = ? WHERE sid = ?"),
  } satisfies Record<string, Statement>;
}

/**
 * What the parts of the SQLite metrics store share: the database and its statements, the
 * series registry in memory, the heads' bookkeeping and the chunk cache. The parts (writes,
 * flush, retention, reads, definitions) are functions of this state; sqlite/store.ts ties
 * them into the MetricsStore.
 */
export class StoreState {
  readonly db: Database;
  readonly st: ReturnType<typeof prepare>;
  /**
   * The series by `kindKey(tenant, type)`, then id: the commit looks a write group's series up
   * without building one key string per series (a few percent of ingest CPU).
   */
  /**
   * Series by id, a table per tenant and type (kindKey): a ByIdTable rather than a Map, about 20
   * bytes a series instead of 68 (issue 28, docs/storage.md thirty-second part).
   */
  readonly byKind = new Map<string, ByIdTable<SeriesMeta>>();
  readonly bySid = new SidIndex<SeriesMeta>();
  readonly byTenant = new Map<string, ListedSeries<SeriesMeta>>();
  readonly tenants = new Map<string, Tenant>();
  /** Retention in days of the series whose definition sets one of its own, by sid: few, so not a field of every series. */
  private readonly retentions = new Map<number, number>();
  /** Series whose head holds points (markDirty, markClean). */
  readonly dirty = new DirtySet<SeriesMeta>();
  /** The first log batch of each head in `dirty`, counted (first-seqs.ts): where the log may be cut. */
  readonly firstSeqs = new FirstSeqs();
  /**
   * No head in `dirty` had its first point arrive before this (a lower bound, set by the flush's
   * walk over the heads), and whether a head has reached chunkPoints since that walk: while
   * neither age nor size nor the budget makes a head due, the flush need not walk them (flush.ts).
   */
  arrivalFloor = Number.NEGATIVE_INFINITY;
  sizeDue = false;
  /** A sliced flush's heads not sealed yet (flush-plan.ts). */
  readonly flushPlan = new FlushPlan<SeriesMeta>();
  headPoints = 0;
  /** Points appended to heads since the store opened (never decreases: the roller's sign that ingest goes on). */
  appended = 0;
  isReady = false;
  flushScheduled = false;
  readonly pending: PendingWrite[] = [];
  commitScheduled = false;
  lastRetentionRun = 0;
  /** Changes when a metric's tags change or a metric is deleted (MetricsStore.definitionsVersion). */
  definitionsVersion = 0;
  /** Changes when a series is added or removed, or its tags change (MetricsStore.seriesVersion). */
  seriesVersion = 0;
  /** Chunks found corrupt (logged once each). */
  readonly corruptChunks = new Set<number>();
  /** Changes whenever chunks are added or deleted: chunk lists looked up before are stale. */
  chunkEpoch = 0;
  /** Chunk lists of series kept between queries, kept exact by flush, retention and deletes. */
  readonly lists: ChunkLists;
  /** Whether chunks written before schema version 2 (no expires_at) may remain. */
  legacyChunks = false;
  /** The rollup tiers, once the store is open (with the rollupTiers option). */
  rollups: SqliteRollups | undefined;
  /** performance.now() of the last read: the roller gives way to queries (rollups.ts). */
  lastReadAt = Number.NEGATIVE_INFINITY;
  readonly now: () => number;
  /** Chunks as stored (blocks), three quarters of --chunk-cache. */
  readonly cache: ChunkCache;
  /** Decoded copies of numeric chunks read more than once, the last quarter: repeated reads skip decoding (those still read kept, see ChunkCache). */
  readonly hot: ChunkCache;
  /** Reads of sealed chunks (loadChunk: queries and API reads) since the start, by where they were found. */
  readonly chunkReads = { decoded: 0, block: 0, database: 0 };
  readonly opts: ResolvedOptions;
  /**
   * The heads' segments kept for reuse between seals (head-segments.ts): up to half of what the
   * heads may hold at once (maxHeadPoints, 16 bytes a point), what a round that seals heads down
   * to half their budget gives back, for the heads that fill next.
   */
  readonly headSegments: HeadSegments;
  /** The commits' log bodies are encoded into this one buffer (the log's append copies each). */
  readonly logScratch = new LogScratch();
  /**
   * With synchronous FULL: syncs the log after commits in another thread (wal-sync.ts); a
   * group's points are applied, and its writes answered, once that sync is done.
   */
  readonly walSync: WalSync | undefined;
  /** First log sequence of each group committed but not yet applied (awaiting walSync), in order. */
  readonly unapplied: number[] = [];
  /** The ingest log's segment files (ingest-log.ts); opened, and replayed, by the store's open. */
  readonly log: IngestLog;
  /** The old log table (the log until 2026-11-29) still holds batches: replayed, then emptied by flushes. */
  legacyLog = false;
  /**
   * The sid the next new series gets: past every sid stored and every sid the ingest log names
   * (set by the store's open). Why not SQLite's next rowid: the series rows and the log records
   * that name them are two writes now; a row lost in a power cut (unacknowledged) or deleted must
   * not have its sid given to another series while records naming it may be replayed.
   */
  nextSid = 1;

  constructor(opts: SqliteMetricsStoreOptions) {
    this.opts = {
      synchronous: "FULL",
      defaultRetentionDays: DEFAULT_RETENTION_DAYS,
      chunkPoints: 1024,
      headMaxAgeMs: 3_600_000,
      maxHeadPoints: 4_000_000,
      maintenanceIntervalMs: 1000,
      chunkCacheBytes: 64 * 1024 * 1024,
      ...opts,
      chunkListChunks: opts.chunkListChunks ?? 200_000,
    };
    this.lists = new ChunkLists(this.opts.chunkListChunks);
    // A head is sealed before it holds 2 × chunkPoints (writes.ts, sealAt).
    this.headSegments = new HeadSegments(this.opts.maxHeadPoints * 8, 2 * this.opts.chunkPoints);
    this.now = opts.now ?? Date.now;
    this.cache = new ChunkCache(this.opts.chunkCacheBytes - Math.floor(this.opts.chunkCacheBytes / 4));
    this.hot = new ChunkCache(Math.floor(this.opts.chunkCacheBytes / 4), Date.now, KEEP_DECODED_READ_WITHIN_MS);
    const path = join(opts.dataDir, "metrics.db");
    // Segments are deleted once the flush that emptied them is on disk: the database's log is
    // synced by walSync's next round, or here (synchronous NORMAL: once a segment, rare).
    this.log = new IngestLog(
      opts.dataDir,
      this.opts.synchronous,
      {
        durable: () => (this.walSync ? this.walSync.afterCommit(true) : syncFile(`${path}-wal`)),
        closeFd: (fd) => (this.walSync ? this.walSync.whenIdle(() => closeSync(fd)) : closeSync(fd)),
      },
      opts.logSegmentBytes,
    );
    this.walSync = this.opts.synchronous === "FULL" ? new WalSync(`${path}-wal`, opts.syncLog, () => this.log.activeFd) : undefined;
    this.db = openDatabase(path, {
      // FULL's sync after each commit is walSync's (in another thread); otherwise as asked.
      synchronous: this.walSync ? "NORMAL" : this.opts.synchronous,
      cacheKiB: METRICS_DB_CACHE_KIB,
      // The ingest log frees the pages of every batch once flushed: a clean stop gives them back.
      autoVacuum: "INCREMENTAL",
    });
    migrate(this.db, METRICS_DB, (m) => this.opts.log?.info(`upgraded ${METRICS_DB.name} to schema ${m.version}`, { step: m.description }));
    opts.health?.register("metrics", this.db);
    this.st = prepare(this.db);
  }

  /**
   * Runs a write; a failure is reported to the storage health (which logs a full disk once)
   * and rethrown. In-memory state is only changed by callers after this returns.
   */
  writing<T>(fn: () => T): T {
    return reportingFailures(this.opts.health, "metrics", fn);
  }

  /** The series of that tenant, type and id, if it exists. */
  find(tenant: string, type: MetricType, id: string): SeriesMeta | undefined {
    return this.byKind.get(kindKey(tenant, type))?.get(id);
  }

  /** A head that got its first points (at log batch `m.head.firstSeq`). */
  markDirty(m: SeriesMeta): void {
    this.dirty.add(m);
    this.firstSeqs.add(m.head!.firstSeq);
  }

  /** A head emptied (sealed) or its series deleted; nothing when it held no points. */
  markClean(m: SeriesMeta): void {
    if (!this.dirty.has(m)) return;
    this.firstSeqs.remove(m.head!.firstSeq);
    this.dirty.delete(m);
  }

  register(m: SeriesMeta): void {
    this.seriesVersion++;
    const k = kindKey(m.tenant, m.type);
    let ids = this.byKind.get(k);
    if (!ids) this.byKind.set(k, (ids = new ByIdTable()));
    // A series registered again in place of another object of its id replaces it, as Map.set did.
    ids.delete(m.id);
    ids.add(m);
    this.bySid.set(m);
    let set = this.byTenant.get(m.tenant);
    if (!set) this.byTenant.set(m.tenant, (set = new ListedSeries()));
    set.add(m);
  }

  unregister(m: SeriesMeta): void {
    this.seriesVersion++;
    this.retentions.delete(m.sid);
    this.byKind.get(kindKey(m.tenant, m.type))?.delete(m.id);
    this.bySid.delete(m.sid);
    this.byTenant.get(m.tenant)?.delete(m);
  }

  /** Inserts the tenant row if it is new (inside the caller's transaction); true when it was new. */
  insertTenantRow(id: string): boolean {
    if (this.tenants.has(id)) return false;
    this.st.insertTenant.run(id, this.now());
    return true;
  }

  /** Inserts a series row (inside the caller's transaction); the caller registers it after the commit. */
  insertSeriesRow(tenant: string, type: MetricType, id: string, tags: Tags | undefined, retention: number | undefined): SeriesMeta {
    const t = tags && Object.keys(tags).length ? (Object.isFrozen(tags) ? tags : { ...tags }) : undefined;
    const sid = this.nextSid++;
    this.st.insertSeries.run(sid, tenant, type, id, t ? JSON.stringify(t) : null, retention ?? null);
    this.setRetention(sid, retention);
    return seriesMeta(sid, tenant, type, id, t, undefined, undefined, 0);
  }

  /** The series' own retention in days (its definition's dataRetention), if it has one. */
  ownRetention(m: SeriesMeta): number | undefined {
    return this.retentions.size === 0 ? undefined : this.retentions.get(m.sid);
  }

  /** Sets (or with undefined, removes) a series' own retention, as stored. */
  setRetention(sid: number, days: number | undefined): void {
    if (days === undefined) this.retentions.delete(sid);
    else this.retentions.set(sid, days);
  }

  /** Retention in days: the metric's, else the tenant's for the type, else the default. */
  retentionDays(m: SeriesMeta): number {
    return this.ownRetention(m) ?? this.tenants.get(m.tenant)?.retentions?.[m.type] ?? this.opts.defaultRetentionDays;
  }

  retentionMs(m: SeriesMeta): number {
    return this.retentionDays(m) * DAY_MS;
  }
}
