import { baseline, type DatabaseSchema } from "../../../src/sqlite/migrations.ts";

/**
 * Tables of alerts.db. Definitions and records are stored whole as JSON; the columns beside
 * them exist only for lookups and filters. Plain SQL types, so that the same DDL runs on
 * PostgreSQL (TEXT, INTEGER → BIGINT there).
 */
export const ALERTS_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS triggers (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    type TEXT NOT NULL,
    member_of TEXT,
    enabled INTEGER NOT NULL,
    mode TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant, id)
  )`,
  "CREATE INDEX IF NOT EXISTS triggers_member_of ON triggers (tenant, member_of)",
  `CREATE TABLE IF NOT EXISTS alerts (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    trigger_id TEXT,
    ctime INTEGER NOT NULL,
    severity TEXT NOT NULL,
    status TEXT NOT NULL,
    status_time INTEGER NOT NULL,
    ack_time INTEGER,
    resolved_time INTEGER,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant, id)
  )`,
  "CREATE INDEX IF NOT EXISTS alerts_ctime ON alerts (tenant, ctime)",
  "CREATE INDEX IF NOT EXISTS alerts_trigger ON alerts (tenant, trigger_id, status)",
  "CREATE INDEX IF NOT EXISTS alerts_status_time ON alerts (tenant, status_time)",
  `CREATE TABLE IF NOT EXISTS events (
    tenant TEXT NOT NULL,
    id TEXT NOT NULL,
    trigger_id TEXT,
    ctime INTEGER NOT NULL,
    category TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant, id)
  )`,
  "CREATE INDEX IF NOT EXISTS events_ctime ON events (tenant, ctime)",
  "CREATE INDEX IF NOT EXISTS events_trigger ON events (tenant, trigger_id)",
  `CREATE TABLE IF NOT EXISTS action_definitions (
    tenant TEXT NOT NULL,
    plugin TEXT NOT NULL,
    action_id TEXT NOT NULL,
    global INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (tenant, plugin, action_id)
  )`,
  `CREATE TABLE IF NOT EXISTS action_history (
    id TEXT NOT NULL PRIMARY KEY,
    tenant TEXT NOT NULL,
    plugin TEXT NOT NULL,
    action_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    ctime INTEGER NOT NULL,
    result TEXT NOT NULL,
    body TEXT NOT NULL
  )`,
  "CREATE INDEX IF NOT EXISTS action_history_ctime ON action_history (tenant, ctime)",
  "CREATE INDEX IF NOT EXISTS action_history_result ON action_history (result)",
];

/** Versions of alerts.db (src/sqlite/migrations.ts). */
export const ALERTS_DB: DatabaseSchema = {
  name: "alerts.db",
  migrations: [baseline("triggers, alerts, events, actions and their history", ALERTS_SCHEMA)],
};
