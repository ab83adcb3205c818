import { baseline, type DatabaseSchema } from "../../../src/sqlite/migrations.ts";

/** The tables of fleet management (types.ts), the same DDL for PostgreSQL (postgres-schema.ts). */
export const FLEET_DDL = [
  `CREATE TABLE IF NOT EXISTS fleet_identities (
  tenant TEXT NOT NULL,
  feed TEXT NOT NULL,
  instance TEXT NOT NULL,
  public_key TEXT,
  host TEXT,
  tags TEXT NOT NULL,
  since INTEGER NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY (tenant, feed)
)`,
  `CREATE TABLE IF NOT EXISTS fleet_conflicts (
  tenant TEXT NOT NULL,
  feed TEXT NOT NULL,
  instance TEXT NOT NULL,
  public_key TEXT,
  host TEXT,
  first_at INTEGER NOT NULL,
  last_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL,
  PRIMARY KEY (tenant, feed, instance)
)`,
  `CREATE TABLE IF NOT EXISTS fleet_identity_log (
  tenant TEXT NOT NULL,
  feed TEXT NOT NULL,
  at INTEGER NOT NULL,
  author TEXT NOT NULL,
  action TEXT NOT NULL,
  from_instance TEXT,
  to_instance TEXT
)`,
  "CREATE INDEX IF NOT EXISTS fleet_identity_log_feed ON fleet_identity_log (tenant, feed, at)",
  `CREATE TABLE IF NOT EXISTS fleet_config_revisions (
  tenant TEXT NOT NULL,
  revision INTEGER NOT NULL,
  target TEXT NOT NULL,
  config TEXT NOT NULL,
  author TEXT NOT NULL,
  at INTEGER NOT NULL,
  comment TEXT,
  PRIMARY KEY (tenant, revision)
)`,
  `CREATE TABLE IF NOT EXISTS fleet_config_status (
  tenant TEXT NOT NULL,
  feed TEXT NOT NULL,
  instance TEXT,
  revision INTEGER NOT NULL,
  state TEXT NOT NULL,
  running INTEGER NOT NULL,
  error TEXT,
  kept TEXT,
  at INTEGER NOT NULL,
  PRIMARY KEY (tenant, feed)
)`,
];

/** Versions of fleet.db (src/sqlite/migrations.ts). */
export const FLEET_DB: DatabaseSchema = {
  name: "fleet.db",
  migrations: [baseline("agent identities and remote configuration", FLEET_DDL)],
};
