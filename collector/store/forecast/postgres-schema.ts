import { type PgSchema, pgBaseline, postgresDdl } from "../../../src/postgres/migrations.ts";
import { FORECAST_DDL } from "./schema.ts";

/** Versions of the forecasting table in PostgreSQL (src/postgres/migrations.ts). */
export const FORECAST_PG: PgSchema = {
  name: "forecast",
  migrations: [pgBaseline("forecast subscriptions", [postgresDdl(FORECAST_DDL)])],
};
