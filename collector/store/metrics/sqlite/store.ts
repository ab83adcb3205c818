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
import { ChunkCache } from "../chunk-cache.ts";
import { decodeChunk, encodeChunk } from "../chunk-codec.ts";
import { buildLogBody, decodeLogBody, encodeLogBody, type LogBody } from "../log-body.ts";
import { SeriesHead } from "../head.ts";
import { lowerBound } from "../../../../src/metrics/series.ts";
import { emptyRun, mergeRuns, type Run, sliceRun } from "../run.ts";
import type { CreateResult, MetricFilter, MetricsStore, NumericSeries, PointColumns, RawQuery } from "../types.ts";
import { migrate } from "./schema.ts";

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
  head?: SeriesHead;
  /** Log sequence of the oldest batch whose points are still in the head. */
  headFirstSeq: number;
}

interface PendingWrite {
  tenant: string;
  writes: MetricWrite[];
  resolve: () => void;
  reject: (e: unknown) => void;
}

const WINDOW_MS = DAY_MS;
const isNumeric = (t: MetricType) => t !== "string";
const key = (tenant: string, type: MetricType, id: string) => `${tenant}\u0000${type}\u0000${id}`;

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
  private readonly now: () => number;
  private readonly cache: ChunkCache;
  private readonly opts: Required<Omit<SqliteMetricsStoreOptions, "log" | "now">> & { log?: Logger };

  private readonly st: {
    insertLog: Statement;
    insertSeries: Statement;
    insertTenant: Statement;
    upsertTenant: Statement;
    insertChunk: Statement;
    selectChunkIds: Statement;
    selectChunk: Statement;
    updateSeriesFlush: Statement;
    updateSeriesDef: Statement;
    deleteLogBefore: Statement;
    deleteExpired: Statement;
    firstChunkFrom: Statement;
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
    migrate(this.db);
    const q = (sql: string) => this.db.prepare(sql);
    this.st = {
      insertLog: q("INSERT INTO ingest_log (body) VALUES (?)"),
      insertSeries: q("INSERT INTO series (tenant, type, metric, tags, retention) VALUES (?, ?, ?, ?, ?) RETURNING sid"),
      insertTenant: q("INSERT OR IGNORE INTO tenants (id, retentions, created) VALUES (?, NULL, ?)"),
      upsertTenant: q(
        "INSERT INTO tenants (id, retentions, created) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET retentions = excluded.retentions",
      ),
      insertChunk: q("INSERT INTO chunks (sid, start_ts, end_ts, n, ts, vals, tags) VALUES (?, ?, ?, ?, ?, ?, ?)"),
      selectChunkIds: q("SELECT cid FROM chunks WHERE sid = ? AND start_ts >= ? AND start_ts < ? AND end_ts >= ? ORDER BY cid"),
      selectChunk: q("SELECT ts, vals, tags FROM chunks WHERE cid = ?"),
      updateSeriesFlush: q("UPDATE series SET min_ts = ?, max_ts = ?, flushed_seq = ? WHERE sid = ?"),
      updateSeriesDef: q("UPDATE series SET tags = ?, retention = ? WHERE sid = ?"),
      deleteLogBefore: q("DELETE FROM ingest_log WHERE seq < ?"),
      deleteExpired: q("DELETE FROM chunks WHERE sid = ? AND end_ts < ?"),
      firstChunkFrom: q("SELECT min(start_ts) AS t FROM chunks WHERE sid = ? AND end_ts >= ?"),
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
    this.st.upsertTenant.run(t.id, retentions ? JSON.stringify(retentions) : null, this.now());
    this.tenants.set(t.id, { id: t.id, retentions });
    return exists ? "overwritten" : "created";
  }

  async listTenants(): Promise<Tenant[]> {
    return [...this.tenants.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async getTenant(id: string): Promise<Tenant | undefined> {
    return this.tenants.get(id);
  }

  private ensureTenant(id: string): void {
    if (this.tenants.has(id)) return;
    this.st.insertTenant.run(id, this.now());
    this.tenants.set(id, { id });
  }

  // ---- definitions ---------------------------------------------------------------------

  async createMetric(def: MetricDefinition, overwrite: boolean): Promise<CreateResult> {
    const existing = this.series.get(key(def.tenantId, def.type, def.id));
    if (existing) {
      if (!overwrite) return "exists";
      existing.tags = def.tags && Object.keys(def.tags).length ? { ...def.tags } : undefined;
      existing.retention = def.dataRetention;
      this.persistDefinition(existing);
      return "overwritten";
    }
    this.db.transaction(() => {
      this.ensureTenant(def.tenantId);
      this.insertSeries(def.tenantId, def.type, def.id, def.tags, def.dataRetention);
    })();
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

  async updateTags(tenant: string, type: MetricType, id: string, tags: Tags): Promise<void> {
    let m = this.series.get(key(tenant, type, id));
    if (!m) {
      this.db.transaction(() => {
        this.ensureTenant(tenant);
        m = this.insertSeries(tenant, type, id, tags, undefined);
      })();
      return;
    }
    m.tags = { ...(m.tags ?? {}), ...tags };
    this.persistDefinition(m);
  }

  async deleteTags(tenant: string, type: MetricType, id: string, names: string[]): Promise<boolean> {
    const m = this.series.get(key(tenant, type, id));
    if (!m) return false;
    if (m.tags) {
      const next = { ...m.tags };
      for (const n of names) delete next[n];
      m.tags = Object.keys(next).length ? next : undefined;
      this.persistDefinition(m);
    }
    return true;
  }

  private persistDefinition(m: SeriesMeta): void {
    this.st.updateSeriesDef.run(m.tags ? JSON.stringify(m.tags) : null, m.retention ?? null, m.sid);
  }

  private insertSeries(tenant: string, type: MetricType, id: string, tags: Tags | undefined, retention: number | undefined): SeriesMeta {
    const t = tags && Object.keys(tags).length ? { ...tags } : undefined;
    const row = this.st.insertSeries.get(tenant, type, id, t ? JSON.stringify(t) : null, retention ?? null) as { sid: number };
    const meta: SeriesMeta = { sid: row.sid, tenant, type, id, tags: t, retention, flushedSeq: 0, headFirstSeq: 0 };
    this.register(meta);
    return meta;
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

  private cutoff(m: SeriesMeta): number {
    return this.now() - this.retentionDays(m) * DAY_MS;
  }

  private definition(m: SeriesMeta): MetricDefinition {
    const def: MetricDefinition = {
      tenantId: m.tenant,
      id: m.id,
      type: m.type,
      tags: m.tags ? { ...m.tags } : undefined,
      dataRetention: m.retention ?? this.opts.defaultRetentionDays,
    };
    if (m.maxTs !== undefined && m.minTs !== undefined) {
      const cutoff = this.cutoff(m);
      if (m.maxTs >= cutoff) {
        def.minTimestamp = m.minTs >= cutoff ? m.minTs : this.earliestFrom(m, cutoff);
        def.maxTimestamp = m.maxTs;
      }
    }
    return def;
  }

  /** Oldest surviving timestamp at or after `cutoff` (used once retention trimmed the start). */
  private earliestFrom(m: SeriesMeta, cutoff: number): number | undefined {
    const row = this.st.firstChunkFrom.get(m.sid, cutoff) as { t: number | null };
    const from = Math.max(cutoff, row.t ?? cutoff);
    const run = this.readRun(m, cutoff, from + WINDOW_MS + 1);
    if (run.ts.length) return run.ts[0];
    const all = this.readRun(m, cutoff, Number.MAX_SAFE_INTEGER);
    return all.ts.length ? all.ts[0] : undefined;
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
    let seq = 0;
    let body: LogBody;
    try {
      this.db.transaction(() => {
        for (const g of group) {
          this.ensureTenant(g.tenant);
          for (const w of g.writes) {
            metas.push(this.series.get(key(g.tenant, w.type, w.id)) ?? this.insertSeries(g.tenant, w.type, w.id, undefined, undefined));
            writes.push(w);
          }
        }
        body = buildLogBody(
          writes,
          metas.map((m) => m.sid),
        );
        seq = Number(this.st.insertLog.run(encodeLogBody(body)).lastInsertRowid);
      })();
    } catch (e) {
      // Series rows inserted by the failed transaction were rolled back: forget them too.
      for (const m of metas) if (!this.seriesRowExists(m.sid)) this.unregister(m);
      for (const g of group) g.reject(e);
      return;
    }
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

  private seriesRowExists(sid: number): boolean {
    return this.db.query("SELECT 1 FROM series WHERE sid = ?").get(sid) !== null;
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
      if (this.now() - this.lastRetentionRun > 600_000) this.enforceRetention();
    } catch (e) {
      this.opts.log?.error("metrics maintenance failed", { err: String(e) });
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

  private flush(due: SeriesMeta[]): void {
    this.db.transaction(() => {
      for (const m of due) {
        const h = m.head!;
        h.normalize();
        const cutoff = this.cutoff(m);
        const numeric = isNumeric(m.type);
        const run: Run = {
          ts: h.ts.subarray(0, h.length),
          nums: numeric ? h.nums!.subarray(0, h.length) : undefined,
          strs: numeric ? undefined : h.strs!.slice(0, h.length),
          tags: h.tags?.slice(0, h.length),
        };
        // One chunk per UTC day window, so a chunk's span is bounded for range lookups.
        let i = lowerBound(run.ts, cutoff);
        while (i < run.ts.length) {
          const windowEnd = (Math.floor(run.ts[i]! / WINDOW_MS) + 1) * WINDOW_MS;
          const j = lowerBound(run.ts, windowEnd, i);
          const part = sliceRun(run, run.ts[i]!, windowEnd);
          const blobs = encodeChunk(part);
          this.st.insertChunk.run(m.sid, run.ts[i]!, run.ts[j - 1]!, j - i, blobs.ts, blobs.vals, blobs.tags);
          i = j;
        }
        this.st.updateSeriesFlush.run(m.minTs ?? null, m.maxTs ?? null, h.lastSeq, m.sid);
      }
      for (const m of due) {
        m.flushedSeq = m.head!.lastSeq;
        this.headPoints -= m.head!.length;
        m.head!.clear();
        this.dirty.delete(m);
      }
      this.truncateLog();
    })();
  }

  /** Drops log batches whose points are all in chunks. */
  private truncateLog(): void {
    let minSeq = Number.POSITIVE_INFINITY;
    for (const m of this.dirty) if (m.head && m.head.length > 0 && m.headFirstSeq < minSeq) minSeq = m.headFirstSeq;
    if (minSeq === Number.POSITIVE_INFINITY) {
      const row = this.db.query("SELECT max(seq) AS s FROM ingest_log").get() as { s: number | null };
      if (row.s !== null) this.st.deleteLogBefore.run(row.s + 1);
    } else this.st.deleteLogBefore.run(minSeq);
  }

  /** Deletes chunks that lie entirely before their series' retention cutoff. */
  enforceRetention(): void {
    this.lastRetentionRun = this.now();
    let deleted = 0;
    this.db.transaction(() => {
      for (const m of this.bySid.values()) deleted += this.st.deleteExpired.run(m.sid, this.cutoff(m)).changes;
    })();
    if (deleted) this.opts.log?.info("retention removed expired chunks", { chunks: deleted });
  }

  // ---- reads ---------------------------------------------------------------------------

  /** Stored points of a series in [start, end), ascending, retention applied. */
  private readRun(m: SeriesMeta, start: number, end: number): Run {
    const numeric = isNumeric(m.type);
    start = Math.max(start, this.cutoff(m));
    if (end <= start) return emptyRun(numeric);
    const runs: Run[] = [];
    const ids = this.st.selectChunkIds.values(m.sid, start - WINDOW_MS, end, start) as [number][];
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
      this.flushDue(true);
      this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }
    this.isReady = false;
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
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM chunks WHERE sid = ?").run(m.sid);
      this.db.prepare("DELETE FROM series WHERE sid = ?").run(m.sid);
    })();
    if (m.head) this.headPoints -= m.head.length;
    this.dirty.delete(m);
    this.unregister(m);
    return true;
  }
}

/** Opens (creating if needed) the SQLite metrics store under `dataDir` and replays its log. */
export async function openSqliteMetricsStore(opts: SqliteMetricsStoreOptions): Promise<SqliteMetricsStore> {
  const s = new SqliteMetricsStore(opts);
  await s.open();
  return s;
}
