import type { SQL } from "bun";
import type { Logger } from "../../../src/log/logger.ts";
import { postgresProbe } from "../../../src/postgres/probe.ts";
import { reportingFailuresAsync, type StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { STATE_VERSION, type SubscriptionRow, toSubscription } from "./state.ts";
import type { ForecastStore, SubscriptionRecord } from "./types.ts";

export interface PostgresForecastStoreOptions {
  /** The collector's pool; the store does not close it. Its table is migrated (FORECAST_PG) before. */
  sql: SQL;
  log: Logger;
  health?: StorageHealth;
}

type RevisedRow = SubscriptionRow & { revision: number | string };

/** Subscriptions and forecaster states in PostgreSQL, as SqliteForecastStore keeps them in forecast.db. */
export class PostgresForecastStore implements ForecastStore {
  private readonly sql: SQL;
  private readonly log: Logger;
  private readonly health: StorageHealth | undefined;

  constructor(opts: PostgresForecastStoreOptions) {
    this.sql = opts.sql;
    this.log = opts.log;
    this.health = opts.health;
    this.health?.registerTarget("forecast", postgresProbe(this.sql, "forecast"));
  }

  /** Runs one write statement, reporting a failure; answers the rows it changed. */
  private async write(text: string, params: (string | number | null)[]): Promise<number> {
    const res = await reportingFailuresAsync(this.health, "forecast", () => this.sql.unsafe(text, params));
    return (res as { count: number }).count;
  }

  async all(): Promise<SubscriptionRecord[]> {
    const rows = (await this.sql.unsafe("SELECT * FROM forecast_subscriptions ORDER BY tenant, metric_id")) as RevisedRow[];
    return rows.map((row) => this.record(row));
  }

  private record(row: RevisedRow): SubscriptionRecord {
    return { ...toSubscription(row, this.log), revision: Number(row.revision) };
  }

  async revisions(): Promise<{ tenant: string; metricId: string; revision: number }[]> {
    const rows = (await this.sql.unsafe("SELECT tenant, metric_id, revision FROM forecast_subscriptions ORDER BY tenant, metric_id")) as RevisedRow[];
    return rows.map((r) => ({ tenant: r.tenant, metricId: r.metric_id, revision: Number(r.revision) }));
  }

  async get(tenant: string, metricId: string): Promise<SubscriptionRecord | undefined> {
    const rows = (await this.sql.unsafe("SELECT * FROM forecast_subscriptions WHERE tenant = $1 AND metric_id = $2", [tenant, metricId])) as RevisedRow[];
    return rows[0] && this.record(rows[0]);
  }

  async insert(r: SubscriptionRecord): Promise<boolean> {
    const n = await this.write(
      `INSERT INTO forecast_subscriptions (tenant, metric_id, collection_interval, state_version, state, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant, metric_id) DO NOTHING`,
      [r.tenant, r.metricId, r.collectionInterval ?? null, STATE_VERSION, JSON.stringify(r.forecaster), r.createdAt],
    );
    if (n === 1) r.revision = 0;
    return n === 1;
  }

  async save(r: SubscriptionRecord): Promise<void> {
    const params = [r.collectionInterval ?? null, STATE_VERSION, JSON.stringify(r.forecaster), r.tenant, r.metricId];
    const rows = (await reportingFailuresAsync(this.health, "forecast", () =>
      this.sql.unsafe(
        "UPDATE forecast_subscriptions SET collection_interval = $1, state_version = $2, state = $3, revision = revision + 1 WHERE tenant = $4 AND metric_id = $5 RETURNING revision",
        params,
      ),
    )) as { revision: number | string }[];
    if (rows[0]) r.revision = Number(rows[0].revision);
  }

  async delete(tenant: string, metricId: string): Promise<boolean> {
    return (await this.write("DELETE FROM forecast_subscriptions WHERE tenant = $1 AND metric_id = $2", [tenant, metricId])) === 1;
  }

  async close(): Promise<void> {
    this.health?.unregister("forecast");
  }
}
