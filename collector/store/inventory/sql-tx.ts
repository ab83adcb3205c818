import { CanonicalPath } from "../../../src/inventory/canonical-path.ts";
import type { EntityRecord, Hashes, RelationshipRecord } from "../../../src/inventory/model.ts";
import type { EntityCode } from "../../../src/inventory/segment-types.ts";
import type { InventoryTx, RelationshipQuery } from "./types.ts";

interface EntityRow {
  path: string;
  type: string;
  id: string;
  name: string | null;
  properties: string | null;
  attrs: string | null;
  identity_hash: string | null;
  content_hash: string | null;
  sync_hash: string | null;
}

interface RelationshipRow {
  id: string;
  name: string;
  source: string;
  target: string;
  properties: string | null;
}

/** Type-specific fields, kept together in one JSON column. */
interface Attrs {
  typePath?: string;
  collectionInterval?: number;
  metricDataType?: EntityRecord["metricDataType"];
  unit?: EntityRecord["unit"];
  value?: unknown;
  hasValue?: boolean;
}

const ENTITY_COLUMNS = "path, type, id, name, properties, attrs, identity_hash, content_hash, sync_hash";
/** Keeps IN (...) lists well under SQLite's variable limit. */
const CHUNK = 500;

function toRecord(row: EntityRow): EntityRecord {
  const e: EntityRecord = { path: CanonicalPath.parse(row.path), type: row.type as EntityCode, id: row.id };
  if (row.name !== null) e.name = row.name;
  if (row.properties !== null) e.properties = JSON.parse(row.properties);
  if (row.attrs !== null) {
    const a = JSON.parse(row.attrs) as Attrs;
    if (a.typePath !== undefined) e.typePath = CanonicalPath.parse(a.typePath);
    if (a.collectionInterval !== undefined) e.collectionInterval = a.collectionInterval;
    if (a.metricDataType !== undefined) e.metricDataType = a.metricDataType;
    if (a.unit !== undefined) e.unit = a.unit;
    if (a.hasValue) e.value = a.value;
  }
  if (row.identity_hash !== null && row.content_hash !== null && row.sync_hash !== null) {
    e.hashes = { identityHash: row.identity_hash, contentHash: row.content_hash, syncHash: row.sync_hash };
  }
  return e;
}

function attrsOf(e: EntityRecord): string | null {
  const a: Attrs = {};
  if (e.typePath) a.typePath = e.typePath.toString();
  if (e.collectionInterval !== undefined) a.collectionInterval = e.collectionInterval;
  if (e.metricDataType !== undefined) a.metricDataType = e.metricDataType;
  if (e.unit !== undefined) a.unit = e.unit;
  if (e.type === "d") {
    a.value = e.value ?? null;
    a.hasValue = true;
  }
  return Object.keys(a).length ? JSON.stringify(a) : null;
}

function toRelationship(row: RelationshipRow): RelationshipRecord {
  const r: RelationshipRecord = {
    id: row.id,
    name: row.name,
    source: CanonicalPath.parse(row.source),
    target: CanonicalPath.parse(row.target),
  };
  if (row.properties !== null) r.properties = JSON.parse(row.properties);
  return r;
}

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const marks = (n: number) => Array.from({ length: n }, () => "?").join(", ");
const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

/**
 * How the statements below reach an engine: SQLite's `?` placeholders are the written form (the
 * PostgreSQL executor numbers them). Both engines run the same statements, so they answer alike.
 */
export interface InventorySql {
  all(sql: string, params: Param[]): Promise<unknown[]>;
  run(sql: string, params: Param[]): Promise<void>;
  /** Whether the transaction is still open (SQLite rolls back by itself on some failures). */
  inTransaction(): boolean;
}

type Param = string | null;

/** The inventory's reads and writes as SQL, inside one transaction (or read view) of `db`. */
export class SqlInventoryTx implements InventoryTx {
  constructor(private readonly db: InventorySql) {}

  private async entities(sql: string, params: Param[]): Promise<EntityRecord[]> {
    return ((await this.db.all(sql, params)) as EntityRow[]).map(toRecord);
  }

  private async rels(sql: string, params: Param[]): Promise<RelationshipRecord[]> {
    return ((await this.db.all(sql, params)) as RelationshipRow[]).map(toRelationship);
  }

  async getEntity(tenant: string, path: CanonicalPath) {
    return (await this.entities(`SELECT ${ENTITY_COLUMNS} FROM inv_entity WHERE tenant = ? AND path = ?`, [tenant, path.toString()]))[0];
  }

  async getEntities(tenant: string, paths: CanonicalPath[]) {
    const out: EntityRecord[] = [];
    for (const c of chunks([...new Set(paths.map(String))])) {
      out.push(
        ...(await this.entities(`SELECT ${ENTITY_COLUMNS} FROM inv_entity WHERE tenant = ? AND path IN (${marks(c.length)})`, [
          tenant,
          ...c,
        ])),
      );
    }
    return out;
  }

  async children(tenant: string, parents: CanonicalPath[]) {
    const out: EntityRecord[] = [];
    for (const c of chunks([...new Set(parents.map(String))])) {
      // Sorted here, not by ORDER BY, which would tempt the planner into a scan of the tenant.
      out.push(...(await this.entities(`SELECT ${ENTITY_COLUMNS} FROM inv_entity WHERE tenant = ? AND parent IN (${marks(c.length)})`, [tenant, ...c])));
    }
    return out.sort((a, b) => byPath(a.path.toString(), b.path.toString()));
  }

  async descendants(tenant: string, root: CanonicalPath) {
    const p = root.toString();
    return this.entities(`SELECT ${ENTITY_COLUMNS} FROM inv_entity WHERE tenant = ? AND path > ? AND path < ? ORDER BY path`, [
      tenant,
      `${p}/`,
      `${p}0`,
    ]);
  }

  async byIdentityHash(tenant: string, type: EntityCode, hashes: string[]) {
    const out: EntityRecord[] = [];
    for (const c of chunks([...new Set(hashes)])) {
      out.push(
        ...(await this.entities(
          `SELECT ${ENTITY_COLUMNS} FROM inv_entity WHERE tenant = ? AND type = ? AND identity_hash IN (${marks(c.length)})`,
          [tenant, type, ...c],
        )),
      );
    }
    return out;
  }

  async getRelationship(tenant: string, id: string) {
    return (await this.rels("SELECT id, name, source, target, properties FROM inv_relationship WHERE tenant = ? AND id = ?", [tenant, id]))[0];
  }

  async relationships(tenant: string, q: RelationshipQuery) {
    const out = new Map<string, RelationshipRecord>();
    const nameClause = q.names?.length ? ` AND name IN (${marks(q.names.length)})` : "";
    const columns = q.direction === "out" ? ["source"] : q.direction === "in" ? ["target"] : ["source", "target"];
    for (const c of chunks([...new Set(q.ends.map(String))])) {
      for (const col of columns) {
        const rows = await this.rels(
          `SELECT id, name, source, target, properties FROM inv_relationship WHERE tenant = ? AND ${col} IN (${marks(c.length)})${nameClause}`,
          [tenant, ...c, ...(q.names ?? [])],
        );
        for (const r of rows) out.set(r.id, r);
      }
    }
    return [...out.values()];
  }

  async findRelationship(tenant: string, source: CanonicalPath, name: string, target: CanonicalPath) {
    const rows = await this.rels(
      "SELECT id, name, source, target, properties FROM inv_relationship WHERE tenant = ? AND source = ? AND name = ? AND target = ?",
      [tenant, source.toString(), name, target.toString()],
    );
    return rows[0];
  }

  async insertEntity(tenant: string, e: EntityRecord) {
    await this.db.run(`INSERT INTO inv_entity (tenant, parent, ${ENTITY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      tenant,
      e.path.parent()?.toString() ?? null,
      e.path.toString(),
      e.type,
      e.id,
      e.name ?? null,
      json(e.properties),
      attrsOf(e),
      e.hashes?.identityHash ?? null,
      e.hashes?.contentHash ?? null,
      e.hashes?.syncHash ?? null,
    ]);
  }

  async updateEntity(tenant: string, e: EntityRecord) {
    await this.db.run("UPDATE inv_entity SET name = ?, properties = ?, attrs = ? WHERE tenant = ? AND path = ?", [
      e.name ?? null,
      json(e.properties),
      attrsOf(e),
      tenant,
      e.path.toString(),
    ]);
  }

  async setHashes(tenant: string, path: CanonicalPath, h: Hashes) {
    await this.db.run("UPDATE inv_entity SET identity_hash = ?, content_hash = ?, sync_hash = ? WHERE tenant = ? AND path = ?", [
      h.identityHash,
      h.contentHash,
      h.syncHash,
      tenant,
      path.toString(),
    ]);
  }

  async deleteEntities(tenant: string, paths: CanonicalPath[]) {
    for (const c of chunks([...new Set(paths.map(String))])) {
      const m = marks(c.length);
      await this.db.run(`DELETE FROM inv_relationship WHERE tenant = ? AND source IN (${m})`, [tenant, ...c]);
      await this.db.run(`DELETE FROM inv_relationship WHERE tenant = ? AND target IN (${m})`, [tenant, ...c]);
      await this.db.run(`DELETE FROM inv_entity WHERE tenant = ? AND path IN (${m})`, [tenant, ...c]);
    }
  }

  async insertRelationship(tenant: string, r: RelationshipRecord) {
    await this.db.run("INSERT INTO inv_relationship (tenant, id, name, source, target, properties) VALUES (?, ?, ?, ?, ?, ?)", [
      tenant,
      r.id,
      r.name,
      r.source.toString(),
      r.target.toString(),
      json(r.properties),
    ]);
  }

  async updateRelationship(tenant: string, r: RelationshipRecord) {
    await this.db.run("UPDATE inv_relationship SET properties = ? WHERE tenant = ? AND id = ?", [json(r.properties), tenant, r.id]);
  }

  async deleteRelationships(tenant: string, ids: string[]) {
    for (const c of chunks([...new Set(ids)])) {
      await this.db.run(`DELETE FROM inv_relationship WHERE tenant = ? AND id IN (${marks(c.length)})`, [tenant, ...c]);
    }
  }

  /** Savepoints open now; names go by depth, so that a few statement texts serve every transaction. */
  private depth = 0;

  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const name = `sp${++this.depth}`;
    try {
      await this.db.run(`SAVEPOINT ${name}`, []);
      try {
        const result = await fn();
        await this.db.run(`RELEASE ${name}`, []);
        return result;
      } catch (e) {
        if (this.db.inTransaction()) {
          try {
            await this.db.run(`ROLLBACK TO ${name}`, []);
            await this.db.run(`RELEASE ${name}`, []);
          } catch {
            // The connection is gone (PostgreSQL): the whole transaction fails with `e`, the cause.
          }
        }
        throw e;
      }
    } finally {
      this.depth--;
    }
  }

  async deleteTenant(tenant: string) {
    await this.db.run("DELETE FROM inv_relationship WHERE tenant = ?", [tenant]);
    await this.db.run("DELETE FROM inv_entity WHERE tenant = ?", [tenant]);
  }
}
