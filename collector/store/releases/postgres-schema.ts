import { type PgSchema, pgBaseline, postgresDdl } from "../../../src/postgres/migrations.ts";
import { RELEASES_DDL } from "./schema.ts";

/** Versions of the releases tables in PostgreSQL (src/postgres/migrations.ts). */
export const RELEASES_PG: PgSchema = {
  name: "releases",
  migrations: [pgBaseline("agent releases, rollouts and agents' reports", RELEASES_DDL.map((s) => postgresDdl(s).replace(/\bBLOB\b/g, "BYTEA")))],
};
