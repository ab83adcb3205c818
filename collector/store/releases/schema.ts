import { baseline, type DatabaseSchema } from "../../../src/sqlite/migrations.ts";

/**
 * Agent releases, rollouts and agents' reports. A binary's row is written with its pieces in one
 * transaction. A rollout's targets have rows of their own: an agent's report changes one row,
 * not the rollout's (a rollout of thousands of feeds).
 */
export const RELEASES_DDL = [
  `CREATE TABLE IF NOT EXISTS release_binaries (
  version TEXT NOT NULL,
  arch TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  signature TEXT NOT NULL,
  uploaded_at INTEGER NOT NULL,
  uploaded_by TEXT NOT NULL,
  PRIMARY KEY (version, arch)
)`,
  `CREATE TABLE IF NOT EXISTS release_pieces (
  version TEXT NOT NULL,
  arch TEXT NOT NULL,
  n INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (version, arch, n)
)`,
  `CREATE TABLE IF NOT EXISTS rollouts (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  version TEXT NOT NULL,
  selector TEXT NOT NULL,
  canary INTEGER NOT NULL,
  batches TEXT NOT NULL,
  force INTEGER NOT NULL,
  deadline_ms INTEGER NOT NULL,
  timeout_ms INTEGER NOT NULL,
  state TEXT NOT NULL,
  reason TEXT,
  batch INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  created_by TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  PRIMARY KEY (tenant, id)
)`,
  `CREATE TABLE IF NOT EXISTS rollout_targets (
  tenant TEXT NOT NULL,
  rollout TEXT NOT NULL,
  feed TEXT NOT NULL,
  batch INTEGER NOT NULL,
  state TEXT NOT NULL,
  from_version TEXT,
  reason TEXT,
  at INTEGER,
  PRIMARY KEY (tenant, rollout, feed)
)`,
  `CREATE TABLE IF NOT EXISTS agent_reports (
  tenant TEXT NOT NULL,
  feed TEXT NOT NULL,
  version TEXT,
  arch TEXT,
  upgrade TEXT,
  tags TEXT,
  at INTEGER NOT NULL,
  PRIMARY KEY (tenant, feed)
)`,
];

/** Versions of releases.db (src/sqlite/migrations.ts). */
export const RELEASES_DB: DatabaseSchema = {
  name: "releases.db",
  migrations: [baseline("agent releases, rollouts and agents' reports", RELEASES_DDL)],
};
