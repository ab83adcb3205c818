import { type PgSchema, pgBaseline, postgresDdl } from "../../../src/postgres/migrations.ts";
import { INVENTORY_DDL } from "./schema.ts";

/** Versions of the inventory tables in PostgreSQL (src/postgres/migrations.ts). */
export const INVENTORY_PG: PgSchema = {
  name: "inventory",
  migrations: [pgBaseline("entities and relationships", [postgresDdl(INVENTORY_DDL)])],
};
