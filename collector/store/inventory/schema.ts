import { baseline, type DatabaseSchema } from "../../../src/sqlite/migrations.ts";

/*
 * Entities are keyed by tenant + canonical path; `parent` indexes the `contains` tree, and
 * everything below a path is a range scan on the primary key (paths sort parent-first, because
 * '/' (0x2F) sorts just before '0' (0x30)). Relationships are rows indexed by source, target
 * and name. Plain SQL (TEXT columns, no SQLite-only types) so a PostgreSQL backend can follow.
 */
export const INVENTORY_DDL = `
CREATE TABLE IF NOT EXISTS inv_entity (
  tenant TEXT NOT NULL,
  path TEXT NOT NULL,
  parent TEXT,
  type TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT,
  properties TEXT,
  attrs TEXT,
  identity_hash TEXT,
  content_hash TEXT,
  sync_hash TEXT,
  PRIMARY KEY (tenant, path)
);
CREATE INDEX IF NOT EXISTS inv_entity_children ON inv_entity (tenant, parent, path);
CREATE INDEX IF NOT EXISTS inv_entity_type ON inv_entity (tenant, type, identity_hash);
CREATE TABLE IF NOT EXISTS inv_relationship (
  tenant TEXT NOT NULL,
  id TEXT NOT NULL,
  name TEXT NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL,
  properties TEXT,
  PRIMARY KEY (tenant, id)
);
CREATE INDEX IF NOT EXISTS inv_relationship_source ON inv_relationship (tenant, source, name);
CREATE INDEX IF NOT EXISTS inv_relationship_target ON inv_relationship (tenant, target, name);
CREATE UNIQUE INDEX IF NOT EXISTS inv_relationship_ends ON inv_relationship (tenant, source, name, target);
`;

/** Versions of inventory.db (src/sqlite/migrations.ts). */
export const INVENTORY_DB: DatabaseSchema = {
  name: "inventory.db",
  migrations: [baseline("entities and relationships", INVENTORY_DDL)],
};
