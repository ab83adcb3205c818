import type { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Logger } from "../../../src/log/logger.ts";
import { openDatabase } from "../../../src/sqlite/open.ts";
import { migrate } from "../../../src/sqlite/migrations.ts";
import { reportingFailures, type StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { FORECAST_DB } from "./schema.ts";
import { STATE_VERSION, type SubscriptionRow, toSubscription } from "./state.ts";
import type { ForecastStore, SubscriptionRecord } from "./types.ts";

export interface SqliteForecastStoreOptions {
  dataDir: string;
  synchronous?: "FULL" | "NORMAL";
  log: Logger;
  /** Told of failed writes (full disk...), and probes this database until it takes writes again. */
  health?: StorageHealth;
}

/** Subscriptions and forecaster states in their own database file, forecast.db. */
export class SqliteForecastStore implements ForecastStore {
  private readonly db: Database;
  private readonly log: Logger;
  private readonly health: StorageHealth | undefined;

  constructor(opts: SqliteForecastStoreOptions) {
    this.db = openDatabase(join(opts.dataDir, "forecast.db"), { synchronous: opts.synchronous ?? "FULL" });
    this.log = opts.log;
    migrate(this.db, FORECAST_DB, (m) => this.log.info(`upgraded ${FORECAST_DB.name} to schema ${m.version}`, { step: m.description }));
    this.health = opts.health;
    this.health?.register("forecast", this.db);
  }

  private write<T>(fn: () => T): T {
    return reportingFailures(this.health, "forecast", fn);
  }

  async all(): Promise<SubscriptionRecord[]> {
    const rows = this.db.query<SubscriptionRow, []>("SELECT * FROM forecast_subscriptions ORDER BY tenant, metric_id").all();
    return rows.map((row) => toSubscription(row, this.log));
  }

  async insert(r: SubscriptionRecord): Promise<boolean> {
    const res = this.write(() =>
      this.db
        .query(
          `INSERT INTO forecast_subscriptions (tenant, metric_id, collection_interval, state_version, state, created_at)
           VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, metric_id) DO NOTHING`,
        )
        .run(r.tenant, r.metricId, r.collectionInterval ?? null, STATE_VERSION, JSON.stringify(r.forecaster), r.createdAt),
    );
    return res.changes === 1;
  }

  async save(r: SubscriptionRecord): Promise<void> {
    this.write(() =>
      this.db
        .query("UPDATE forecast_subscriptions SET collection_interval = ?, state_version = ?, state = ? WHERE tenant = ? AND metric_id = ?")
        .run(r.collectionInterval ?? null, STATE_VERSION, JSON.stringify(r.forecaster), r.tenant, r.metricId),
    );
  }

  async delete(tenant: string, metricId: string): Promise<boolean> {
    return this.write(() => this.db.query("DELETE FROM forecast_subscriptions WHERE tenant = ? AND metric_id = ?").run(tenant, metricId).changes === 1);
  }

  async close(): Promise<void> {
    this.health?.unregister("forecast");
    this.db.close();
  }
}
