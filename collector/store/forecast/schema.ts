import { baseline, type DatabaseSchema } from "../../../src/sqlite/migrations.ts";

/** Forecast subscriptions with their forecaster state (JSON, versioned by state_version). */
export const FORECAST_DDL = `
CREATE TABLE IF NOT EXISTS forecast_subscriptions (
  tenant TEXT NOT NULL,
  metric_id TEXT NOT NULL,
  collection_interval INTEGER,
  state_version INTEGER NOT NULL,
  state TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, metric_id)
)`;

/** Versions of forecast.db (src/sqlite/migrations.ts). */
export const FORECAST_DB: DatabaseSchema = {
  name: "forecast.db",
  migrations: [baseline("forecast subscriptions", FORECAST_DDL)],
};
