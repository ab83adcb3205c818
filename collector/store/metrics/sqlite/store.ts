import type { Database, Statement } from "bun:sqlite";
import { join } from "node:path";
import type { Logger } from "../../../../src/log/logger.ts";
import {
  AVAILABILITY_VALUES,
  DAY_MS,
  DEFAULT_RETENTION_DAYS,
  type MetricDefinition,
  type MetricType,
  type MetricWrite,
  type Tags,
  type Tenant,
} from "../../../../src/metrics/model.ts";
import { openDatabase } from "../../../../src/sqlite/open.ts";
import { reportingFailures, type StorageHealth } from "../../../../src/sqlite/storage-health.ts";
import { ChunkCache } from "../chunk-cache.ts";
import { decodeChunk, encodeChunk } from "../chunk-codec.ts";
import { buildLogBody, decodeLogBody, encodeLogBody, type LogBody } from "../log-body.ts";
import { SeriesHead } from "../head.ts";
import { lowerBound } from "../../../../src/metrics/series.ts";
import { emptyRun, mergeRuns, type Run, sliceRun } from "../run.ts";
import type { CreateResult, MetricFilter, MetricsStore, NumericSeries, PointColumns, RawQuery, SeriesEntry } from "../types.ts";
import { migrate } from "../../../../src/sqlite/migrations.ts";
import { METRICS_DB } from "./schema.ts";

export interface SqliteMetricsStoreOptions {
  dataDir: string;
  synchronous?: "FULL" | "NORMAL";
  defaultRetentionDays?: number;
  log?: Logger;
  /** A head reaching this many points is flushed into a chunk. */
  chunkPoints?: number;
  /** A head whose oldest point arrived this long ago is flushed (bounds the log). */
  headMaxAgeMs?: number;
  /** Above this many unflushed points in total, the largest heads are flushed first. */
  maxHeadPoints?: number;
  /** Memory for decoded chunks kept between reads, in bytes (0 disables). */
  chunkCacheBytes?: number;
  /** Period of the background flush and retention work. */
  maintenanceIntervalMs?: number;
  /** Told of failed writes (full disk...), and probes this database until it takes writes again. */
  health?: StorageHealth;
  now?: () => number;
}

interface SeriesMeta {
  sid: number;
  tenant: string;
  type: MetricType;
  id: string;
  tags?: Tags;
  retention?: number;
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
  /** Log sequence of the oldest batch whose points are still in the head. */
  headFirstSeq: number;
}

interface Bounds {
  minTs: number | undefined;
  maxTs: number | undefined;
}

interface PendingWrite {
  tenant: string;
  writes: MetricWrite[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

const WINDOW_MS = DAY_MS;
/** How often expired chunks are deleted; reads hide them from the moment they expire. */
const RETENTION_PERIOD_MS = 60_000;
const isNumeric = (t: MetricType) => t !== "string";
const key = (tenant: string, type: MetricType, id: string) => `${tenant}\u0000${type}\u0000${id}`;

function sameTags(a: Tags | undefined, b: Tags): boolean {
  const ak = a ? Object.keys(a) : [];
  if (ak.length !== Object.keys(b).length) return false;
  return ak.every((k) => a![k] === b[k]);
}

/**
 * The SQLite metrics store. Writes commit one log row per batch and land in per-series
 * in-memory heads; a background flush turns heads into immutable chunks. Reads merge chunks
 * and head. See docs/storage.md.
 */
export class SqliteMetricsStore implements MetricsStore {
  private readonly db: Database;
  private readonly series = new Map<string, SeriesMeta>();
  private readonly bySid = new Map<number, SeriesMeta>();
  private readonly byTenant = new Map<string, Set<SeriesMeta>>();
  private readonly tenants = new Map<string, Tenant>();
  private readonly dirty = new Set<SeriesMeta>();
  private headPoints = 0;
  private isReady = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private flushScheduled = false;
  private readonly pending: PendingWrite[] = [];
  private commitScheduled = false;
  private lastRetentionRun = 0;
  /** Whether chunks written before schema version 2 (no expires_at) may remain. */
  private legacyChunks = false;
  private readonly now: () => number;
  private readonly cache: ChunkCache;
  private readonly opts: Required<Omit<SqliteMetricsStoreOptions, "log" | "now" | "health">> & { log?: Logger; health?: StorageHealth };

  private readonly st: {
    insertLog: Statement;
    insertSeries: Statement;
    insertTenant: Statement;
    upsertTenant: Statement;
    insertChunk: Statement;
    selectChunkIds: Statement;
    selectChunkMax: Statement;
    selectChunk: Statement;
    updateSeriesFlush: Statement;
    updateSeriesDef: Statement;
    deleteLogBefore: Statement;
    deleteExpired: Statement;
    deleteExpiredLegacy: Statement;
    seriesBounds: Statement;
    updateSeriesBounds: Statement;
  };

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
    };
    this.now = opts.now ?? Date.now;
    this.cache = new ChunkCache(this.opts.chunkCacheBytes);
    this.db = openDatabase(join(opts.dataDir, "metrics.db"), { synchronous: this.opts.synchronous, cacheKiB: 65536 });
    migrate(this.db, METRICS_DB, (m) => this.opts.log?.info(`upgraded ${METRICS_DB.name} to schema ${m.version}`, { step: m.description }));
    opts.health?.register("metrics", this.db);
    const q = (sql: string) => this.db.prepare(sql);
    this.st = {
      insertLog: q("INSERT INTO ingest_log (body) VALUES (?)"),
      insertSeries: q("INSERT INTO series (tenant, type, metric, tags, retention) VALUES (?, ?, ?, ?, ?) RETURNING sid"),
      insertTenant: q("INSERT OR IGNORE INTO tenants (id, retentions, created) VALUES (?, NULL, ?)"),
      upsertTenant: q(
        "INSERT INTO tenants (id, retentions, created) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET retentions = excluded.retentions",
      ),
      insertChunk: q("INSERT INTO chunks (sid, start_ts, end_ts, n, ts, vals, tags, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
      // A chunk from before version 2 (no expires_at) expires by its newest timestamp, as it did.
      selectChunkIds: q(
        "SELECT cid FROM chunks WHERE sid = ? AND start_ts >= ? AND start_ts < ? AND end_ts >= ? AND coalesce(expires_at, end_ts + ?) > ? ORDER BY cid",
      ),
      selectChunkMax: q("SELECT max(end_ts) AS m FROM chunks WHERE sid = ?"),
      selectChunk: q("SELECT ts, vals, tags FROM chunks WHERE cid = ?"),
      updateSeriesFlush: q("UPDATE series SET min_ts = ?, max_ts = ?, flushed_seq = ? WHERE sid = ?"),
      updateSeriesDef: q("UPDATE series SET tags = ?, retention = ? WHERE sid = ?"),
      deleteLogBefore: q("DELETE FROM ingest_log WHERE seq < ?"),
      deleteExpired: q("DELETE FROM chunks WHERE expires_at <= ? RETURNING sid"),
      deleteExpiredLegacy: q("DELETE FROM chunks WHERE sid = ? AND expires_at IS NULL AND end_ts + ? <= ?"),
      seriesBounds: q("SELECT min(start_ts) AS lo, max(end_ts) AS hi FROM chunks WHERE sid = ?"),
      updateSeriesBounds: q("UPDATE series SET min_ts = ?, max_ts = ? WHERE sid = ?"),
    };
  }

  /**
   * Loads definitions and replays the unflushed log, yielding to the event loop between
   * slices so the HTTP server can answer 503 meanwhile; the store is ready afterwards.
   */
  async open(): Promise<void> {
    const started = this.now();
    for (const row of this.db.query("SELECT id, retentions FROM tenants").all() as { id: string; retentions: string | null }[]) {
      this.tenants.set(row.id, { id: row.id, retentions: row.retentions ? JSON.parse(row.retentions) : undefined });
    }
    const rows = this.db
      .query("SELECT sid, tenant, type, metric, tags, retention, min_ts, max_ts, flushed_seq FROM series")
      .all() as {
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
    for (const r of rows) {
      this.register({
        sid: r.sid,
        tenant: r.tenant,
        type: r.type,
        id: r.metric,
        tags: r.tags ? JSON.parse(r.tags) : undefined,
        retention: r.retention ?? undefined,
        minTs: r.min_ts ?? undefined,
        maxTs: r.max_ts ?? undefined,
        flushedSeq: r.flushed_seq,
        headFirstSeq: 0,
      });
    }
    this.legacyChunks = this.db.query("SELECT 1 FROM chunks WHERE expires_at IS NULL LIMIT 1").get() !== null;
    let batches = 0;
    let points = 0;
    let after = 0;
    const page = this.db.prepare("SELECT seq, body FROM ingest_log WHERE seq > ? ORDER BY seq LIMIT 256");
    for (;;) {
      const rows = page.all(after) as { seq: number; body: Uint8Array }[];
      if (rows.length === 0) break;
      for (const row of rows) {
        batches++;
        points += this.applyBody(decodeLogBody(row.body), row.seq, started);
        after = row.seq;
      }
      await new Promise<void>((r) => setImmediate(r));
    }
    this.isReady = true;
    this.opts.log?.info("metrics store open", {
      series: this.series.size,
      replayedBatches: batches,
      replayedPoints: points,
      ms: this.now() - started,
    });
    this.timer = setInterval(() => this.maintain(), this.opts.maintenanceIntervalMs);
    this.timer.unref?.();
  }

  ready(): boolean {
    return this.isReady;
  }

  // ---- tenants -------------------------------------------------------------------------

  async createTenant(t: Tenant, overwrite: boolean): Promise<CreateResult> {
    const exists = this.tenants.has(t.id);
    if (exists && !overwrite) return "exists";
    const retentions = t.retentions && Object.keys(t.retentions).length ? t.retentions : undefined;
    this.writing(() => this.st.upsertTenant.run(t.id, retentions ? JSON.stringify(retentions) : null, this.now()));
    this.tenants.set(t.id, { id: t.id, retentions });
    return exists ? "overwritten" : "created";
  }

  async listTenants(): Promise<Tenant[]> {
    return [...this.tenants.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async getTenant(id: string): Promise<Tenant | undefined> {
    return this.tenants.get(id);
  }

  async deleteTenant(id: string): Promise<void> {
    const metas = [...(this.byTenant.get(id) ?? [])];
    this.writing(() =>
      this.db.transaction(() => {
        for (const m of metas) this.deleteSeriesRows(m);
        this.db.prepare("DELETE FROM tenants WHERE id = ?").run(id);
      })(),
    );
    for (const m of metas) this.forget(m);
    this.byTenant.delete(id);
    this.tenants.delete(id);
  }

  /** Inserts the tenant row if it is new (inside the caller's transaction); true when it was new. */
  private insertTenantRow(id: string): boolean {
    if (this.tenants.has(id)) return false;
    this.st.insertTenant.run(id, this.now());
    return true;
  }

  /**
   * Runs a write; a failure is reported to the storage health (which logs a full disk once)
   * and rethrown. In-memory state is only changed by callers after this returns.
   */
  private writing<T>(fn: () => T): T {
    return reportingFailures(this.opts.health, "metrics", fn);
  }

  /** Runs `fn` in one transaction; what it created is registered in memory only once it committed. */
  private createSeries(tenant: string, type: MetricType, id: string, tags: Tags | undefined, retention: number | undefined): SeriesMeta {
    let newTenant = false;
    const meta = this.writing(() =>
      this.db.transaction(() => {
        newTenant = this.insertTenantRow(tenant);
        return this.insertSeriesRow(tenant, type, id, tags, retention);
      })(),
    );
    if (newTenant) this.tenants.set(tenant, { id: tenant });
    this.register(meta);
    return meta;
  }

  // ---- definitions ---------------------------------------------------------------------

  async createMetric(def: MetricDefinition, overwrite: boolean): Promise<CreateResult> {
    const existing = this.series.get(key(def.tenantId, def.type, def.id));
    if (existing) {
      if (!overwrite) return "exists";
      this.updateDefinition(existing, def.tags && Object.keys(def.tags).length ? { ...def.tags } : undefined, def.dataRetention);
      return "overwritten";
    }
    this.createSeries(def.tenantId, def.type, def.id, def.tags, def.dataRetention);
    return "created";
  }

  async getMetric(tenant: string, type: MetricType, id: string): Promise<MetricDefinition | undefined> {
    const m = this.series.get(key(tenant, type, id));
    return m ? this.definition(m) : undefined;
  }

  async findMetrics(tenant: string, filter: MetricFilter = {}): Promise<MetricDefinition[]> {
    const out: MetricDefinition[] = [];
    if (filter.ids) {
      const types: MetricType[] = filter.type ? [filter.type] : ["gauge", "availability", "counter", "string"];
      for (const id of filter.ids) {
        for (const t of types) {
          const m = this.series.get(key(tenant, t, id));
          if (m) out.push(this.definition(m));
        }
      }
      return out;
    }
    for (const m of this.byTenant.get(tenant) ?? []) {
      if (!filter.type || m.type === filter.type) out.push(this.definition(m));
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.type < b.type ? -1 : 1));
  }

  async listSeries(tenant: string): Promise<SeriesEntry[]> {
    const out: SeriesEntry[] = [];
    for (const m of this.byTenant.get(tenant) ?? []) out.push({ type: m.type, id: m.id, tags: m.tags, minTs: m.minTs, maxTs: m.maxTs });
    return out;
  }

  async updateTags(tenant: string, type: MetricType, id: string, tags: Tags): Promise<void> {
    const m = this.series.get(key(tenant, type, id));
    if (!m) {
      this.createSeries(tenant, type, id, tags, undefined);
      return;
    }
    this.updateDefinition(m, { ...(m.tags ?? {}), ...tags }, m.retention);
  }

  async ensureTags(tenant: string, items: { type: MetricType; id: string; tags: Tags }[]): Promise<void> {
    const changed = items.filter((it) => {
      const m = this.series.get(key(tenant, it.type, it.id));
      return !m || !sameTags(m.tags, it.tags);
    });
    if (changed.length === 0) return;
    // Stored first; memory follows the commit (a failed one changes nothing).
    let newTenant = false;
    const created = new Map<string, SeriesMeta>();
    const updated = new Map<SeriesMeta, Tags | undefined>();
    this.writing(() =>
      this.db.transaction(() => {
        newTenant = this.insertTenantRow(tenant);
        for (const it of changed) {
          const k = key(tenant, it.type, it.id);
          const m = this.series.get(k);
          const tags = Object.keys(it.tags).length ? { ...it.tags } : undefined;
          if (m) {
            this.st.updateSeriesDef.run(tags ? JSON.stringify(tags) : null, m.retention ?? null, m.sid);
            updated.set(m, tags);
          } else if (!created.has(k)) created.set(k, this.insertSeriesRow(tenant, it.type, it.id, tags, undefined));
        }
      })(),
    );
    if (newTenant) this.tenants.set(tenant, { id: tenant });
    for (const m of created.values()) this.register(m);
    for (const [m, tags] of updated) m.tags = tags;
  }

  async deleteTags(tenant: string, type: MetricType, id: string, names: string[]): Promise<boolean> {
    const m = this.series.get(key(tenant, type, id));
    if (!m) return false;
    if (m.tags) {
      const next = { ...m.tags };
      for (const n of names) delete next[n];
      this.updateDefinition(m, Object.keys(next).length ? next : undefined, m.retention);
    }
    return true;
  }

  /** Stores new definition fields, then (once stored) takes them into memory. */
  private updateDefinition(m: SeriesMeta, tags: Tags | undefined, retention: number | undefined): void {
    this.writing(() => this.st.updateSeriesDef.run(tags ? JSON.stringify(tags) : null, retention ?? null, m.sid));
    m.tags = tags;
    m.retention = retention;
  }

  /** Inserts a series row (inside the caller's transaction); the caller registers it after the commit. */
  private insertSeriesRow(tenant: string, type: MetricType, id: string, tags: Tags | undefined, retention: number | undefined): SeriesMeta {
    const t = tags && Object.keys(tags).length ? { ...tags } : undefined;
    const row = this.st.insertSeries.get(tenant, type, id, t ? JSON.stringify(t) : null, retention ?? null) as { sid: number };
    return { sid: row.sid, tenant, type, id, tags: t, retention, flushedSeq: 0, headFirstSeq: 0 };
  }

  private register(m: SeriesMeta): void {
    this.series.set(key(m.tenant, m.type, m.id), m);
    this.bySid.set(m.sid, m);
    let set = this.byTenant.get(m.tenant);
    if (!set) this.byTenant.set(m.tenant, (set = new Set()));
    set.add(m);
  }

  private unregister(m: SeriesMeta): void {
    this.series.delete(key(m.tenant, m.type, m.id));
    this.bySid.delete(m.sid);
    this.byTenant.get(m.tenant)?.delete(m);
  }

  /** Retention in days: the metric's, else the tenant's for the type, else the default. */
  private retentionDays(m: SeriesMeta): number {
    return m.retention ?? this.tenants.get(m.tenant)?.retentions?.[m.type] ?? this.opts.defaultRetentionDays;
  }

  private retentionMs(m: SeriesMeta): number {
    return this.retentionDays(m) * DAY_MS;
  }

  /** min/max timestamps are those of the points stored (retention removes whole chunks, see enforceRetention). */
  private definition(m: SeriesMeta): MetricDefinition {
    const def: MetricDefinition = {
      tenantId: m.tenant,
      id: m.id,
      type: m.type,
      tags: m.tags ? { ...m.tags } : undefined,
      dataRetention: m.retention ?? this.opts.defaultRetentionDays,
    };
    if (m.maxTs !== undefined && m.minTs !== undefined) {
      def.minTimestamp = m.minTs;
      def.maxTimestamp = m.maxTs;
    }
    return def;
  }

  // ---- writes --------------------------------------------------------------------------

  /**
   * Queues the writes; every write that arrives in the same event-loop turn is committed in
   * one transaction (group commit), so concurrent requests share one fsync. Resolves after the
   * commit, when the points are also readable.
   */
  write(tenant: string, writes: MetricWrite[]): Promise<void> {
    if (!this.isReady) return Promise.reject(new Error("metrics store is not open"));
    const nonEmpty = writes.filter((w) => w.points.length > 0);
    if (nonEmpty.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.pending.push({ tenant, writes: nonEmpty, resolve, reject });
      if (!this.commitScheduled) {
        this.commitScheduled = true;
        setImmediate(() => this.commitPending());
      }
    });
  }

  private commitPending(): void {
    this.commitScheduled = false;
    const group = this.pending.splice(0);
    if (group.length === 0) return;
    const writes: MetricWrite[] = [];
    const metas: SeriesMeta[] = [];
    // Tenants and series this group creates: registered in memory only after the commit.
    const newTenants: string[] = [];
    const newSeries = new Map<string, SeriesMeta>();
    let seq = 0;
    let body: LogBody;
    try {
      this.writing(() =>
        this.db.transaction(() => {
          for (const g of group) {
            if (!newTenants.includes(g.tenant) && this.insertTenantRow(g.tenant)) newTenants.push(g.tenant);
            for (const w of g.writes) {
              const k = key(g.tenant, w.type, w.id);
              let m = this.series.get(k) ?? newSeries.get(k);
              if (!m) newSeries.set(k, (m = this.insertSeriesRow(g.tenant, w.type, w.id, undefined, undefined)));
              metas.push(m);
              writes.push(w);
            }
          }
          body = buildLogBody(
            writes,
            metas.map((m) => m.sid),
          );
          seq = Number(this.st.insertLog.run(encodeLogBody(body)).lastInsertRowid);
        })(),
      );
    } catch (e) {
      for (const g of group) g.reject(e);
      return;
    }
    for (const t of newTenants) this.tenants.set(t, { id: t });
    for (const m of newSeries.values()) this.register(m);
    this.applyBody(body!, seq, this.now());
    for (const g of group) g.resolve();
    if (this.headPoints > this.opts.maxHeadPoints && !this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.flushDue();
      });
    }
  }

  /** Appends the points of a log body to the series heads; skips series flushed past `seq`. */
  private applyBody(b: LogBody, seq: number, now: number): number {
    const tags = b.tags.length ? new Map(b.tags) : undefined;
    let o = 0;
    let s = 0;
    let applied = 0;
    for (let k = 0; k < b.sids.length; k++) {
      const n = b.counts[k]!;
      const meta = this.bySid.get(b.sids[k]!);
      const numeric = meta ? isNumeric(meta.type) : true;
      if (!meta || meta.flushedSeq >= seq) {
        if (!numeric) s += n;
        else if (!meta) {
          // Unknown series (deleted since): its string values, if any, are NaN-marked in nums.
          for (let i = 0; i < n; i++) if (Number.isNaN(b.nums[o + i]!)) s++;
        }
        o += n;
        continue;
      }
      let head = meta.head;
      if (!head) meta.head = head = new SeriesHead(numeric);
      if (head.length === 0) meta.headFirstSeq = seq;
      const before = head.length;
      let min = meta.minTs ?? Number.POSITIVE_INFINITY;
      let max = meta.maxTs ?? Number.NEGATIVE_INFINITY;
      for (let i = 0; i < n; i++, o++) {
        const t = b.ts[o]!;
        head.append(t, numeric ? b.nums[o]! : b.strs[s++]!, tags?.get(o), seq, now);
        if (t < min) min = t;
        if (t > max) max = t;
      }
      meta.minTs = min;
      meta.maxTs = max;
      this.headPoints += head.length - before;
      this.dirty.add(meta);
      applied += n;
    }
    return applied;
  }

  // ---- flush and retention -------------------------------------------------------------

  private maintain(): void {
    try {
      this.flushDue();
      if (this.now() - this.lastRetentionRun >= RETENTION_PERIOD_MS) this.enforceRetention();
    } catch (e) {
      // A full disk is logged once by the storage health; the heads keep their points and the
      // next run retries.
      if (this.opts.health?.report(e, "metrics") === undefined) this.opts.log?.error("metrics maintenance failed", { err: String(e) });
    }
  }

  /** Flushes heads that are big or old enough, and the largest ones while memory is over budget. */
  flushDue(force = false): void {
    if (this.dirty.size === 0) return;
    const now = this.now();
    const due: SeriesMeta[] = [];
    for (const m of this.dirty) {
      const h = m.head;
      if (!h || h.length === 0) continue;
      if (force || h.length >= this.opts.chunkPoints || now - h.firstArrival >= this.opts.headMaxAgeMs) due.push(m);
    }
    let remaining = this.headPoints;
    for (const m of due) remaining -= m.head!.length;
    if (remaining > this.opts.maxHeadPoints) {
      const rest = [...this.dirty].filter((m) => !due.includes(m) && m.head && m.head.length > 0);
      rest.sort((a, b) => b.head!.length - a.head!.length);
      for (const m of rest) {
        if (remaining <= this.opts.maxHeadPoints / 2) break;
        due.push(m);
        remaining -= m.head!.length;
      }
    }
    if (due.length === 0) return;
    this.flush(due);
  }

  /**
   * Writes the heads of `due` into chunks and drops the log batches no head needs any more, in
   * one transaction. The heads are emptied only after the commit: if it fails (a full disk),
   * their points stay in memory and in the log, and a later flush writes them.
   */
  private flush(due: SeriesMeta[]): void {
    this.db.transaction(() => {
      for (const m of due) {
        const h = m.head!;
        h.normalize();
        // Retention counts from the write: the chunk lives its retention from now, whatever its timestamps.
        const expiresAt = this.now() + this.retentionMs(m);
        const numeric = isNumeric(m.type);
        const run: Run = {
          ts: h.ts.subarray(0, h.length),
          nums: numeric ? h.nums!.subarray(0, h.length) : undefined,
          strs: numeric ? undefined : h.strs!.slice(0, h.length),
          tags: h.tags?.slice(0, h.length),
        };
        // One chunk per UTC day window, so a chunk's span is bounded for range lookups.
        let i = 0;
        while (i < run.ts.length) {
          const windowEnd = (Math.floor(run.ts[i]! / WINDOW_MS) + 1) * WINDOW_MS;
          const j = lowerBound(run.ts, windowEnd, i);
          const part = sliceRun(run, run.ts[i]!, windowEnd);
          const blobs = encodeChunk(part);
          this.st.insertChunk.run(m.sid, run.ts[i]!, run.ts[j - 1]!, j - i, blobs.ts, blobs.vals, blobs.tags, expiresAt);
          // Only a known mark moves: an unknown one is read from the table when needed. Set
          // before the commit, a failed one leaves it too high, which costs a lookup, never a point.
          if (m.chunkMaxTs !== undefined) m.chunkMaxTs = Math.max(m.chunkMaxTs ?? Number.NEGATIVE_INFINITY, run.ts[j - 1]!);
          i = j;
        }
        this.st.updateSeriesFlush.run(m.minTs ?? null, m.maxTs ?? null, h.lastSeq, m.sid);
      }
      this.truncateLog(new Set(due));
    })();
    for (const m of due) {
      m.flushedSeq = m.head!.lastSeq;
      this.headPoints -= m.head!.length;
      m.head!.clear();
      this.dirty.delete(m);
    }
  }

  /** Drops log batches whose points are all in chunks, counting the heads of `flushing` as written. */
  private truncateLog(flushing: Set<SeriesMeta>): void {
    let minSeq = Number.POSITIVE_INFINITY;
    for (const m of this.dirty) {
      if (!flushing.has(m) && m.head && m.head.length > 0 && m.headFirstSeq < minSeq) minSeq = m.headFirstSeq;
    }
    if (minSeq === Number.POSITIVE_INFINITY) {
      const row = this.db.query("SELECT max(seq) AS s FROM ingest_log").get() as { s: number | null };
      if (row.s !== null) this.st.deleteLogBefore.run(row.s + 1);
    } else this.st.deleteLogBefore.run(minSeq);
  }

  /**
   * Deletes the chunks whose retention has passed since they were written, and updates the
   * min/max timestamps of the series that lost some. Chunks from before version 2 expire by
   * their newest timestamp, as they did when they were written.
   */
  enforceRetention(): void {
    const now = this.now();
    this.lastRetentionRun = now;
    const touched = new Set<number>();
    const bounds: [SeriesMeta, Bounds][] = [];
    let legacyLeft = this.legacyChunks;
    this.db.transaction(() => {
      for (const row of this.st.deleteExpired.all(now) as { sid: number }[]) touched.add(row.sid);
      if (this.legacyChunks) {
        for (const m of this.bySid.values()) if (this.st.deleteExpiredLegacy.run(m.sid, this.retentionMs(m), now).changes > 0) touched.add(m.sid);
        legacyLeft = this.db.query("SELECT 1 FROM chunks WHERE expires_at IS NULL LIMIT 1").get() !== null;
      }
      for (const sid of touched) {
        const m = this.bySid.get(sid);
        if (!m) continue;
        const b = this.boundsLeft(m);
        this.st.updateSeriesBounds.run(b.minTs ?? null, b.maxTs ?? null, m.sid);
        bounds.push([m, b]);
      }
    })();
    // Memory follows only once the deletion is committed.
    this.legacyChunks = legacyLeft;
    for (const [m, b] of bounds) {
      m.minTs = b.minTs;
      m.maxTs = b.maxTs;
    }
    if (touched.size) this.opts.log?.info("retention removed expired chunks", { series: touched.size });
  }

  /** min/max timestamps of the remaining chunks and the head. */
  private boundsLeft(m: SeriesMeta): Bounds {
    const row = this.st.seriesBounds.get(m.sid) as { lo: number | null; hi: number | null };
    let lo = row.lo ?? Number.POSITIVE_INFINITY;
    let hi = row.hi ?? Number.NEGATIVE_INFINITY;
    const h = m.head;
    for (let i = 0; h && i < h.length; i++) {
      const t = h.ts[i]!;
      if (t < lo) lo = t;
      if (t > hi) hi = t;
    }
    return { minTs: Number.isFinite(lo) ? lo : undefined, maxTs: Number.isFinite(hi) ? hi : undefined };
  }

  // ---- reads ---------------------------------------------------------------------------

  /** Stored points of a series in [start, end), ascending; expired chunks are left out. */
  private readRun(m: SeriesMeta, start: number, end: number): Run {
    const numeric = isNumeric(m.type);
    if (end <= start) return emptyRun(numeric);
    const runs: Run[] = [];
    if (m.chunkMaxTs === undefined) m.chunkMaxTs = (this.st.selectChunkMax.get(m.sid) as { m: number | null }).m;
    // No chunk ends at or after `start`: only the head can hold points of the range.
    const ids =
      m.chunkMaxTs !== null && m.chunkMaxTs >= start
        ? (this.st.selectChunkIds.values(m.sid, start - WINDOW_MS, end, start, this.retentionMs(m), this.now()) as [number][])
        : [];
    for (const [cid] of ids) {
      let run = this.cache.get(cid);
      if (!run) {
        const row = this.st.selectChunk.get(cid) as { ts: Uint8Array; vals: Uint8Array; tags: Uint8Array | null } | null;
        if (!row) continue;
        run = decodeChunk(row, numeric);
        this.cache.set(cid, run);
      }
      runs.push(sliceRun(run, start, end));
    }
    const h = m.head;
    if (h && h.length > 0) {
      h.normalize();
      runs.push(
        sliceRun(
          {
            ts: h.ts.subarray(0, h.length),
            nums: h.nums?.subarray(0, h.length),
            strs: h.strs?.slice(0, h.length),
            tags: h.tags?.slice(0, h.length),
          },
          start,
          end,
        ),
      );
    }
    return mergeRuns(runs, numeric);
  }

  async readRaw(tenant: string, type: MetricType, id: string, q: RawQuery): Promise<PointColumns> {
    const m = this.series.get(key(tenant, type, id));
    if (!m) return { ts: [], values: [] };
    const run = this.readRun(m, q.start, q.end);
    const n = run.ts.length;
    const limit = q.limit && q.limit > 0 ? Math.min(q.limit, n) : n;
    const ts = new Array<number>(limit);
    const values = new Array<number | string>(limit);
    const anyTags = run.tags?.some((t) => t !== undefined) ?? false;
    const tags = anyTags ? new Array<Tags | undefined>(limit) : undefined;
    const avail = type === "availability";
    for (let k = 0; k < limit; k++) {
      const i = q.order === "asc" ? k : n - 1 - k;
      ts[k] = run.ts[i]!;
      values[k] = run.nums ? (avail ? AVAILABILITY_VALUES[run.nums[i]!]! : run.nums[i]!) : run.strs![i]!;
      if (tags) tags[k] = run.tags![i];
    }
    return tags ? { ts, values, tags } : { ts, values };
  }

  async readSeries(tenant: string, type: MetricType, id: string, start: number, end: number): Promise<NumericSeries | undefined> {
    const m = this.series.get(key(tenant, type, id));
    if (!m || !isNumeric(type)) return undefined;
    const run = this.readRun(m, start, end);
    return { ts: run.ts, values: run.nums!, tags: run.tags };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.isReady) {
      try {
        this.flushDue(true);
        this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      } catch (e) {
        // Nothing is lost: the log keeps every unflushed point and the next open replays it.
        this.opts.log?.warn("metrics store closed without a final flush; the log will be replayed", { err: String(e) });
      }
    }
    this.isReady = false;
    this.opts.health?.unregister("metrics");
    this.db.close();
  }

  /** Counts for self-metrics and tests. */
  stats(): { series: number; headPoints: number; logBatches: number; chunks: number } {
    const c = this.db.query("SELECT (SELECT count(*) FROM ingest_log) AS l, (SELECT count(*) FROM chunks) AS c").get() as {
      l: number;
      c: number;
    };
    return { series: this.series.size, headPoints: this.headPoints, logBatches: c.l, chunks: c.c };
  }

  /** Removes a metric and all its points (post-0.16 DELETE /{type}/{id}). */
  async deleteMetric(tenant: string, type: MetricType, id: string): Promise<boolean> {
    const m = this.series.get(key(tenant, type, id));
    if (!m) return false;
    this.writing(() => this.db.transaction(() => this.deleteSeriesRows(m))());
    this.forget(m);
    return true;
  }

  private deleteSeriesRows(m: SeriesMeta): void {
    this.db.prepare("DELETE FROM chunks WHERE sid = ?").run(m.sid);
    this.db.prepare("DELETE FROM series WHERE sid = ?").run(m.sid);
  }

  /** Drops a deleted series from memory (after its rows were deleted). */
  private forget(m: SeriesMeta): void {
    if (m.head) this.headPoints -= m.head.length;
    this.dirty.delete(m);
    this.unregister(m);
  }
}

/** Opens (creating if needed) the SQLite metrics store under `dataDir` and replays its log. */
export async function openSqliteMetricsStore(opts: SqliteMetricsStoreOptions): Promise<SqliteMetricsStore> {
  const s = new SqliteMetricsStore(opts);
  await s.open();
  return s;
}
