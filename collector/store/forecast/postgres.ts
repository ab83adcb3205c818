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
    const rows = (await this.sql.unsafe("SELECT * FROM forecast_subscriptions ORDER BY tenant, metric_id")) as SubscriptionRow[];
    return rows.map((row) => toSubscription(row, this.log));
  }

  async insert(r: SubscriptionRecord): Promise<boolean> {
    const n = await this.write(
      `INSERT INTO forecast_subscriptions (tenant, metric_id, collection_interval, state_version, state, created_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant, metric_id) DO NOTHING`,
      [r.tenant, r.metricId, r.collectionInterval ?? null, STATE_VERSION, JSON.stringify(r.forecaster), r.createdAt],
    );
    return n === 1;
  }

  async save(r: SubscriptionRecord): Promise<void> {
    await this.write("UPDATE forecast_subscriptions SET collection_interval = $1, state_version = $2, state = $3 WHERE tenant = $4 AND metric_id = $5", [
      r.collectionInterval ?? null,
      STATE_VERSION,
      JSON.stringify(r.forecaster),
      r.tenant,
      r.metricId,
    ]);
  }

  async delete(tenant: string, metricId: string): Promise<boolean> {
    return (await this.write("DELETE FROM forecast_subscriptions WHERE tenant = $1 AND metric_id = $2", [tenant, metricId])) === 1;
  }

  async close(): Promise<void> {
    this.health?.unregister("forecast");
  }
}
