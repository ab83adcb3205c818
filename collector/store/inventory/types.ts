import type { CanonicalPath } from "../../../src/inventory/canonical-path.ts";
import type { EntityRecord, Hashes, RelationshipRecord } from "../../../src/inventory/model.ts";
import type { EntityCode } from "../../../src/inventory/segment-types.ts";

export type RelDirection = "out" | "in" | "both";

export interface RelationshipQuery {
  /** Entities whose relationships are wanted. */
  ends: CanonicalPath[];
  /** out: the ends are sources; in: the ends are targets; both: either. */
  direction: RelDirection;
  /** Only relationships with one of these names. */
  names?: string[];
}

/**
 * Reads of the inventory graph. Every call is scoped by tenant: no call can see another
 * tenant's data. Async so that a networked backend (PostgreSQL) fits the same shape.
 */
export interface InventoryReader {
  getEntity(tenant: string, path: CanonicalPath): Promise<EntityRecord | undefined>;
  /** The entities that exist among `paths`, in no particular order. */
  getEntities(tenant: string, paths: CanonicalPath[]): Promise<EntityRecord[]>;
  /** Direct children (over `contains`) of the given entities, sorted by path. */
  children(tenant: string, parents: CanonicalPath[]): Promise<EntityRecord[]>;
  /** Everything below `root` (not `root` itself). */
  descendants(tenant: string, root: CanonicalPath): Promise<EntityRecord[]>;
  /** Entities of a type whose identity hash is one of `hashes`. */
  byIdentityHash(tenant: string, type: EntityCode, hashes: string[]): Promise<EntityRecord[]>;
  getRelationship(tenant: string, id: string): Promise<RelationshipRecord | undefined>;
  relationships(tenant: string, q: RelationshipQuery): Promise<RelationshipRecord[]>;
  findRelationship(
    tenant: string,
    source: CanonicalPath,
    name: string,
    target: CanonicalPath,
  ): Promise<RelationshipRecord | undefined>;
}

/** Reads and writes inside one transaction. */
export interface InventoryTx extends InventoryReader {
  insertEntity(tenant: string, e: EntityRecord): Promise<void>;
  /** Replaces the stored fields of an existing entity (same path). */
  updateEntity(tenant: string, e: EntityRecord): Promise<void>;
  setHashes(tenant: string, path: CanonicalPath, hashes: Hashes): Promise<void>;
  /** Removes the entities and every relationship that starts or ends at one of them. */
  deleteEntities(tenant: string, paths: CanonicalPath[]): Promise<void>;
  insertRelationship(tenant: string, r: RelationshipRecord): Promise<void>;
  updateRelationship(tenant: string, r: RelationshipRecord): Promise<void>;
  deleteRelationships(tenant: string, ids: string[]): Promise<void>;
  /** Removes everything of the tenant. */
  deleteTenant(tenant: string): Promise<void>;
  /** Runs `fn` so that a failure undoes only its own writes (a nested transaction). */
  savepoint<T>(fn: () => Promise<T>): Promise<T>;
}

export interface InventoryStore {
  /**
   * Runs `fn` in one write transaction: committed when it resolves, rolled back when it throws.
   * Transactions (and reads) are serialized, so `fn` sees a stable state.
   */
  transaction<T>(fn: (tx: InventoryTx) => Promise<T>): Promise<T>;
  /** Runs `fn` with a consistent read view. */
  read<T>(fn: (r: InventoryReader) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
