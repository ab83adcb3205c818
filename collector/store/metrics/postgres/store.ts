import type { MetricDefinition, MetricType, MetricWrite, Tags, Tenant } from "../../../../src/metrics/model.ts";
import { columnsToWrites, type WriteColumns } from "../../../../src/metrics/write-columns.ts";
import { postgresProbe } from "../../../../src/postgres/probe.ts";
import { runColumns } from "../../../../src/metrics/run-columns.ts";
import type { CreateResult, MetricFilter, MetricsStore, NumericSeries, PointColumns, RawQuery, SeriesEntry } from "../types.ts";
import { PgContext, type PostgresMetricsStoreOptions } from "./context.ts";
import * as defs from "./definitions.ts";
import { readRun, writePoints } from "./points.ts";
import { METRIC_PARTITIONS } from "./partition-step.ts";
import { PgRollups } from "./rollups.ts";
import { ALL_PARTITIONS, enforceRetention, sealDue } from "./seal.ts";

export type { PostgresMetricsStoreOptions } from "./context.ts";

/** How often expired chunks are deleted; reads hide them from the moment they expire. */
const RETENTION_PERIOD_MS = 60_000;

/**
 * The metrics store in PostgreSQL, shared by every collector on the database: writes commit
 * blocks of recent points, one per series and write (points.ts), a background task seals them into compressed chunks and
 * applies retention (seal.ts), for the partitions whose lease this collector holds, tenants and definitions are rows read afresh by each call
 * (definitions.ts). Nothing a read needs is kept in one collector's memory. See
 * docs/scale-out.md, "Metrics".
 */
export class PostgresMetricsStore implements MetricsStore {
  private readonly c: PgContext;
  private timer: ReturnType<typeof setInterval> | undefined;
  private isReady = false;
  /** The background round running now, which close() waits for before the pool ends. */
  private maintaining: Promise<void> | undefined;
  private lastRetention = 0;
  /** Partitions held at the last round: one taken over has its retention run at once. */
  private lastParts = "";
  /** performance.now() at the start of the last background round. */
  private lastRound = 0;
  private readonly ownership: PostgresMetricsStoreOptions["ownership"];
  /** The rollup tiers (with the rollupTiers option). */
  readonly rollups: PgRollups | undefined;

  constructor(opts: PostgresMetricsStoreOptions) {
    if (opts.ownership && opts.ownership.partitions !== METRIC_PARTITIONS) {
      throw new Error(`the metrics store divides its work into ${METRIC_PARTITIONS} partitions, the leases into ${opts.ownership.partitions}`);
    }
    this.c = new PgContext(opts);
    this.ownership = opts.ownership;
    this.rollups = opts.rollupTiers ? new PgRollups(this.c, opts.rollupTiers) : undefined;
    opts.health?.registerTarget("metrics", postgresProbe(opts.sql, "metrics"));
  }

  /** The partitions whose sealing and retention are this collector's now. */
  private parts(): readonly number[] {
    return this.ownership ? this.ownership.leases().map((l) => l.partition) : ALL_PARTITIONS;
  }

  /**
   * Starts the background sealing; there is no log to replay. Rounds run every
   * maintenanceIntervalMs, and within a second of a change of the partitions held, so that a
   * partition taken over is sealed and expired at once.
   */
  async open(): Promise<void> {
    this.isReady = true;
    this.lastParts = this.parts().join(",");
    this.lastRound = performance.now();
    this.timer = setInterval(() => {
      if (performance.now() - this.lastRound >= this.c.maintenanceIntervalMs || this.parts().join(",") !== this.lastParts) void this.maintain();
    }, Math.min(1000, this.c.maintenanceIntervalMs));
    this.timer.unref?.();
  }

  ready(): boolean {
    return this.isReady;
  }

  private maintain(): Promise<void> {
    this.maintaining ??= this.maintainOnce().finally(() => {
      this.maintaining = undefined;
    });
    return this.maintaining;
  }

  private async maintainOnce(): Promise<void> {
    this.lastRound = performance.now();
    try {
      const parts = this.parts();
      await sealDue(this.c, parts);
      const key = parts.join(",");
      if (this.c.now() - this.lastRetention >= RETENTION_PERIOD_MS || key !== this.lastParts) {
        this.lastRetention = this.c.now();
        this.lastParts = key;
        await enforceRetention(this.c, parts);
        await this.rollups?.retention(parts);
      }
      // After the seal: the chunks it wrote are rolled up in the same round (docs/storage.md, "Rollup tiers").
      await this.rollups?.round(parts);
    } catch (e) {
      // Unsealed points stay in their blocks, readable; the next run retries.
      if (this.c.health?.report(e, "metrics") === undefined) this.c.log?.error("metrics maintenance failed", { err: String(e) });
    }
  }

  createTenant(t: Tenant, overwrite: boolean): Promise<CreateResult> {
    return defs.createTenant(this.c, t, overwrite);
  }

  listTenants(): Promise<Tenant[]> {
    return defs.listTenants(this.c);
  }

  getTenant(id: string): Promise<Tenant | undefined> {
    return defs.getTenant(this.c, id);
  }

  deleteTenant(id: string): Promise<void> {
    return defs.deleteTenant(this.c, id);
  }

  createMetric(def: MetricDefinition, overwrite: boolean): Promise<CreateResult> {
    return defs.createMetric(this.c, def, overwrite);
  }

  getMetric(tenant: string, type: MetricType, id: string): Promise<MetricDefinition | undefined> {
    return defs.getMetric(this.c, tenant, type, id);
  }

  findMetrics(tenant: string, filter: MetricFilter = {}): Promise<MetricDefinition[]> {
    return defs.findMetrics(this.c, tenant, filter);
  }

  listSeries(tenant: string): Promise<SeriesEntry[]> {
    return defs.listSeries(this.c, tenant);
  }

  updateTags(tenant: string, type: MetricType, id: string, tags: Tags): Promise<void> {
    return defs.updateTags(this.c, tenant, type, id, tags);
  }

  ensureTags(tenant: string, items: { type: MetricType; id: string; tags: Tags }[]): Promise<void> {
    return defs.ensureTags(this.c, tenant, items);
  }

  deleteTags(tenant: string, type: MetricType, id: string, names: string[]): Promise<boolean> {
    return defs.deleteTags(this.c, tenant, type, id, names);
  }

  deleteMetric(tenant: string, type: MetricType, id: string): Promise<boolean> {
    return defs.deleteMetric(this.c, tenant, type, id);
  }

  write(tenant: string, writes: MetricWrite[]): Promise<void> {
    if (!this.isReady) return Promise.reject(new Error("metrics store is not open"));
    return writePoints(this.c, tenant, writes);
  }

  /** The blocks are built per series from point objects either way: the columns become them. */
  writeColumns(tenant: string, cols: WriteColumns): Promise<void> {
    return this.write(tenant, columnsToWrites(cols));
  }

  async readRaw(tenant: string, type: MetricType, id: string, q: RawQuery): Promise<PointColumns> {
    const run = await readRun(this.c, tenant, type, id, q.start, q.end);
    return run ? runColumns(run, type, q) : { ts: [], values: [] };
  }

  async readSeries(tenant: string, type: MetricType, id: string, start: number, end: number): Promise<NumericSeries | undefined> {
    if (type === "string") return undefined;
    const run = await readRun(this.c, tenant, type, id, start, end);
    return run && { ts: run.ts, values: run.nums!, tags: run.tags };
  }

  /** Seals the series of this collector's partitions that are due (all with `force`) now; the background task does it every few seconds. */
  seal(force = false): Promise<number> {
    return sealDue(this.c, this.parts(), force);
  }

  /** Deletes this collector's partitions' expired chunks now (the background task does it every minute). */
  async enforceRetention(): Promise<number> {
    const n = await enforceRetention(this.c, this.parts());
    await this.rollups?.retention(this.parts());
    return n;
  }

  /** Rolls up every queued chunk of this collector's partitions now (the background task does it after each seal). */
  async rollUp(): Promise<void> {
    await this.rollups?.round(this.parts(), Number.POSITIVE_INFINITY);
  }

  /** Points in unsealed blocks (a point written twice counts twice), blocks and chunks, for tests. */
  async stats(): Promise<{ points: number; blocks: number; chunks: number }> {
    const [r] = await this.c.rows<{ p: string; b: string; c: string }>(
      "SELECT (SELECT coalesce(sum(n), 0) FROM metric_blocks) AS p, (SELECT count(*) FROM metric_blocks) AS b, (SELECT count(*) FROM metric_chunks) AS c",
    );
    return { points: Number(r!.p), blocks: Number(r!.b), chunks: Number(r!.c) };
  }

  /** Stops the background task; every acknowledged point is already in PostgreSQL. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.maintaining;
    this.isReady = false;
    this.c.health?.unregister("metrics");
  }
}
