import { type PgSchema, pgBaseline, postgresDdl } from "../../../src/postgres/migrations.ts";
import { FORECAST_DDL } from "./schema.ts";

/** Versions of the forecasting table in PostgreSQL (src/postgres/migrations.ts). */
export const FORECAST_PG: PgSchema = {
  name: "forecast",
  migrations: [
    pgBaseline("forecast subscriptions", [postgresDdl(FORECAST_DDL)]),
    {
      version: 2,
      description: "count of saves, so that collectors sharing the database reload only changed models",
      async up(tx) {
        await tx.unsafe("ALTER TABLE forecast_subscriptions ADD COLUMN IF NOT EXISTS revision BIGINT NOT NULL DEFAULT 0");
      },
    },
  ],
};
