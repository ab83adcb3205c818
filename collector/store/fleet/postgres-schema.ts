import { type PgSchema, pgBaseline, postgresDdl } from "../../../src/postgres/migrations.ts";
import { FLEET_DDL } from "./schema.ts";

/** Versions of the fleet tables in PostgreSQL (src/postgres/migrations.ts). */
export const FLEET_PG: PgSchema = {
  name: "fleet",
  migrations: [pgBaseline("agent identities and remote configuration", FLEET_DDL.map(postgresDdl))],
};
