import { compact } from "../../src/http/json.ts";
import type { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import type { EntityRecord, RelationshipRecord } from "../../src/inventory/model.ts";
import type { InventoryReader } from "../store/inventory/types.ts";

export type Json = Record<string, unknown>;

/**
 * The JSON of an entity (research §3.3): common fields, hashes for syncable types, and the
 * type-specific ones. `type` of a resource or metric is the full type entity when it exists.
 */
export function entityJson(e: EntityRecord, typeEntity?: EntityRecord): Json {
  const out: Json = { path: e.path.toString() };
  // A data entity is known by its role, which is already the last segment of its path.
  if (e.type !== "d") out.id = e.id;
  out.name = e.name;
  out.properties = e.properties;
  if (e.hashes) {
    out.identityHash = e.hashes.identityHash;
    out.contentHash = e.hashes.contentHash;
    out.syncHash = e.hashes.syncHash;
  }
  switch (e.type) {
    case "mt":
      out.type = e.metricDataType;
      out.metricDataType = e.metricDataType?.toLowerCase();
      out.unit = e.unit;
      out.collectionInterval = e.collectionInterval;
      break;
    case "m":
      out.type = typeEntity ? entityJson(typeEntity) : undefined;
      out.collectionInterval = e.collectionInterval;
      break;
    case "r":
      out.type = typeEntity ? entityJson(typeEntity) : undefined;
      break;
    case "d":
      out.value = e.value;
      break;
  }
  return compact(out) as Json;
}

export function relationshipJson(r: RelationshipRecord): Json {
  return compact({
    id: r.id,
    name: r.name,
    source: r.source.toString(),
    target: r.target.toString(),
    properties: r.properties,
  }) as Json;
}

/** Renders entities, loading the resource and metric types they refer to in one query. */
export async function renderEntities(r: InventoryReader, tenant: string, list: EntityRecord[]): Promise<Json[]> {
  const typePaths = list.map((e) => e.typePath).filter((p): p is CanonicalPath => p !== undefined);
  const types = new Map<string, EntityRecord>();
  if (typePaths.length) for (const t of await r.getEntities(tenant, typePaths)) types.set(t.path.toString(), t);
  return list.map((e) => entityJson(e, e.typePath ? types.get(e.typePath.toString()) : undefined));
}

export async function renderEntity(r: InventoryReader, tenant: string, e: EntityRecord): Promise<Json> {
  return (await renderEntities(r, tenant, [e]))[0]!;
}
