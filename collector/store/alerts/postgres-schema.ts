import { type PgSchema, pgBaseline, postgresDdl } from "../../../src/postgres/migrations.ts";
import { ALERTS_SCHEMA } from "./schema.ts";

/** Versions of the alerts tables in PostgreSQL (src/postgres/migrations.ts): SQLite's layout, typed for PostgreSQL. */
export const ALERTS_PG: PgSchema = {
  name: "alerts",
  migrations: [pgBaseline("triggers, alerts, events, actions and their history", ALERTS_SCHEMA.map(postgresDdl))],
};
