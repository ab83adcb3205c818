import type { Database } from "bun:sqlite";
import { CanonicalPath } from "../../../src/inventory/canonical-path.ts";
import type { EntityRecord, Hashes, RelationshipRecord } from "../../../src/inventory/model.ts";
import type { EntityCode } from "../../../src/inventory/segment-types.ts";
import { type OpenOptions, openDatabase } from "../../../src/sqlite/open.ts";
import { migrate } from "../../../src/sqlite/migrations.ts";
import type { StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { INVENTORY_DB } from "./schema.ts";
import { SerialLock } from "./serial-lock.ts";
import type { InventoryReader, InventoryStore, InventoryTx, RelationshipQuery } from "./types.ts";


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

class SqliteInventoryTx implements InventoryTx {
  constructor(private readonly db: Database) {}

  private entities(sql: string, params: (string | null)[]): EntityRecord[] {
    return (this.db.query(sql).all(...params) as EntityRow[]).map(toRecord);
  }

  private rels(sql: string, params: (string | null)[]): RelationshipRecord[] {
    return (this.db.query(sql).all(...params) as RelationshipRow[]).map(toRelationship);
  }

  async getEntity(tenant: string, path: CanonicalPath) {
    return this.entities(`SELECT ${ENTITY_COLUMNS} FROM inv_entity WHERE tenant = ? AND path = ?`, [tenant, path.toString()])[0];
  }

  async getEntities(tenant: string, paths: CanonicalPath[]) {
    const out: EntityRecord[] = [];
    for (const c of chunks([...new Set(paths.map(String))])) {
      out.push(
        ...this.entities(`SELECT ${ENTITY_COLUMNS} FROM inv_entity WHERE tenant = ? AND path IN (${marks(c.length)})`, [
          tenant,
          ...c,
        ]),
      );
    }
    return out;
  }

  async children(tenant: string, parents: CanonicalPath[]) {
    const out: EntityRecord[] = [];
    for (const c of chunks([...new Set(parents.map(String))])) {
      // Sorted here, not by ORDER BY, which would tempt the planner into a scan of the tenant.
      out.push(...this.entities(`SELECT ${ENTITY_COLUMNS} FROM inv_entity WHERE tenant = ? AND parent IN (${marks(c.length)})`, [tenant, ...c]));
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
        ...this.entities(
          `SELECT ${ENTITY_COLUMNS} FROM inv_entity WHERE tenant = ? AND type = ? AND identity_hash IN (${marks(c.length)})`,
          [tenant, type, ...c],
        ),
      );
    }
    return out;
  }

  async getRelationship(tenant: string, id: string) {
    return this.rels("SELECT id, name, source, target, properties FROM inv_relationship WHERE tenant = ? AND id = ?", [
      tenant,
      id,
    ])[0];
  }

  async relationships(tenant: string, q: RelationshipQuery) {
    const out = new Map<string, RelationshipRecord>();
    const nameClause = q.names?.length ? ` AND name IN (${marks(q.names.length)})` : "";
    const columns = q.direction === "out" ? ["source"] : q.direction === "in" ? ["target"] : ["source", "target"];
    for (const c of chunks([...new Set(q.ends.map(String))])) {
      for (const col of columns) {
        const rows = this.rels(
          `SELECT id, name, source, target, properties FROM inv_relationship WHERE tenant = ? AND ${col} IN (${marks(c.length)})${nameClause}`,
          [tenant, ...c, ...(q.names ?? [])],
        );
        for (const r of rows) out.set(r.id, r);
      }
    }
    return [...out.values()];
  }

  async findRelationship(tenant: string, source: CanonicalPath, name: string, target: CanonicalPath) {
    return this.rels(
      "SELECT id, name, source, target, properties FROM inv_relationship WHERE tenant = ? AND source = ? AND name = ? AND target = ?",
      [tenant, source.toString(), name, target.toString()],
    )[0];
  }

  async insertEntity(tenant: string, e: EntityRecord) {
    this.db
      .query(
        `INSERT INTO inv_entity (tenant, parent, ${ENTITY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
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
      );
  }

  async updateEntity(tenant: string, e: EntityRecord) {
    this.db
      .query("UPDATE inv_entity SET name = ?, properties = ?, attrs = ? WHERE tenant = ? AND path = ?")
      .run(e.name ?? null, json(e.properties), attrsOf(e), tenant, e.path.toString());
  }

  async setHashes(tenant: string, path: CanonicalPath, h: Hashes) {
    this.db
      .query("UPDATE inv_entity SET identity_hash = ?, content_hash = ?, sync_hash = ? WHERE tenant = ? AND path = ?")
      .run(h.identityHash, h.contentHash, h.syncHash, tenant, path.toString());
  }

  async deleteEntities(tenant: string, paths: CanonicalPath[]) {
    for (const c of chunks([...new Set(paths.map(String))])) {
      const m = marks(c.length);
      this.db.query(`DELETE FROM inv_relationship WHERE tenant = ? AND source IN (${m})`).run(tenant, ...c);
      this.db.query(`DELETE FROM inv_relationship WHERE tenant = ? AND target IN (${m})`).run(tenant, ...c);
      this.db.query(`DELETE FROM inv_entity WHERE tenant = ? AND path IN (${m})`).run(tenant, ...c);
    }
  }

  async insertRelationship(tenant: string, r: RelationshipRecord) {
    this.db
      .query("INSERT INTO inv_relationship (tenant, id, name, source, target, properties) VALUES (?, ?, ?, ?, ?, ?)")
      .run(tenant, r.id, r.name, r.source.toString(), r.target.toString(), json(r.properties));
  }

  async updateRelationship(tenant: string, r: RelationshipRecord) {
    this.db
      .query("UPDATE inv_relationship SET properties = ? WHERE tenant = ? AND id = ?")
      .run(json(r.properties), tenant, r.id);
  }

  async deleteRelationships(tenant: string, ids: string[]) {
    for (const c of chunks([...new Set(ids)])) {
      this.db.query(`DELETE FROM inv_relationship WHERE tenant = ? AND id IN (${marks(c.length)})`).run(tenant, ...c);
    }
  }

  private savepoints = 0;

  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const name = `sp${++this.savepoints}`;
    this.db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      this.db.exec(`RELEASE ${name}`);
      return result;
    } catch (e) {
      if (this.db.inTransaction) {
        this.db.exec(`ROLLBACK TO ${name}`);
        this.db.exec(`RELEASE ${name}`);
      }
      throw e;
    }
  }

  async deleteTenant(tenant: string) {
    this.db.query("DELETE FROM inv_relationship WHERE tenant = ?").run(tenant);
    this.db.query("DELETE FROM inv_entity WHERE tenant = ?").run(tenant);
  }
}

class SqliteInventoryStore implements InventoryStore {
  private readonly lock = new SerialLock();
  private readonly tx: SqliteInventoryTx;

  constructor(
    private readonly db: Database,
    private readonly health?: StorageHealth,
  ) {
    migrate(db, INVENTORY_DB);
    this.tx = new SqliteInventoryTx(db);
    health?.register("inventory", db);
  }

  transaction<T>(fn: (tx: InventoryTx) => Promise<T>): Promise<T> {
    return this.lock.run(async () => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const result = await fn(this.tx);
        this.db.exec("COMMIT");
        return result;
      } catch (e) {
        // SQLite may already have rolled back (a full disk at COMMIT): a second ROLLBACK would
        // fail and hide the real error.
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        this.health?.report(e, "inventory");
        throw e;
      }
    });
  }

  read<T>(fn: (r: InventoryReader) => Promise<T>): Promise<T> {
    return this.lock.run(() => fn(this.tx));
  }

  async close(): Promise<void> {
    this.health?.unregister("inventory");
    await this.lock.run(async () => this.db.close());
  }
}

/** Opens (creating if needed) the inventory database at `path`, e.g. `<data-dir>/inventory.db`. */
export function openSqliteInventoryStore(path: string, opts: OpenOptions & { health?: StorageHealth } = {}): InventoryStore {
  return new SqliteInventoryStore(openDatabase(path, opts), opts.health);
}
