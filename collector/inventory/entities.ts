import { badRequest } from "../../src/http/errors.ts";
import type { EntityBlueprint, EntityUpdate } from "../../src/inventory/blueprints.ts";
import type { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import { compareJava } from "../../src/inventory/java-strings.ts";
import { sha1 } from "../../src/inventory/hash.ts";
import type { EntityRecord } from "../../src/inventory/model.ts";
import { WELL_KNOWN } from "../../src/inventory/model.ts";
import { resolvePath } from "../../src/inventory/path-resolve.ts";
import { recordOf } from "../../src/inventory/records.ts";
import { canFollow, DATA_ROLES, type EntityCode, SIMPLE_NAMES } from "../../src/inventory/segment-types.ts";
import type { InventoryReader, InventoryTx } from "../store/inventory/types.ts";
import type { Changes } from "./changes.ts";
import { checked, entityExists, entityNotFound } from "./failures.ts";
import { checkLink, insertLink, type LinkRequest } from "./relationships.ts";
import { relationshipJson, renderEntity } from "./render.ts";

/** An entity ready to be written, with everything it links to already checked. */
interface PreparedEntity {
  record: EntityRecord;
  /** The inventory's own relationships (contains, defines, isParentOf, pack membership). */
  managed: LinkRequest[];
  /** Relationships the blueprint asked for. */
  requested: LinkRequest[];
}

/** Resolves a path written in a payload against the parent of the entity being created. */
export function resolveAgainst(text: string, tenant: string, parent: CanonicalPath, finalType?: EntityCode): CanonicalPath {
  return checked(() => resolvePath(text, { tenant, origin: parent, finalType }));
}

/**
 * Validates a blueprint under `parentPath` without writing: the parent exists, the type may live
 * there, the id is free, referenced types and relationship ends exist. Throws ApiErrors.
 */
export async function prepareEntity(
  r: InventoryReader,
  tenant: string,
  parentPath: CanonicalPath,
  bp: EntityBlueprint,
): Promise<PreparedEntity> {
  if (!canFollow(parentPath.type, bp.type)) {
    throw badRequest(`A ${SIMPLE_NAMES[bp.type]} cannot be created under a ${SIMPLE_NAMES[parentPath.type]}`);
  }
  if (!(await r.getEntity(tenant, parentPath))) throw entityNotFound(parentPath);
  const managed: LinkRequest[] = [];
  let id = bp.id;
  if (bp.type === "mp") {
    const members = await packMembers(r, tenant, parentPath, bp.members ?? []);
    id = packId(members);
    for (const m of members) managed.push({ source: parentPath.extend("mp", id), name: WELL_KNOWN.incorporates, target: m.path });
  }
  if (bp.type === "d") {
    const roles: readonly string[] = DATA_ROLES[parentPath.type as EntityCode] ?? [];
    if (!roles.includes(id)) {
      throw badRequest(`'${id}' is not a data role of a ${SIMPLE_NAMES[parentPath.type]}; expected ${roles.join(" or ")}`);
    }
  }
  const path = checked(() => parentPath.extend(bp.type, id));
  if (await r.getEntity(tenant, path)) throw entityExists(path);

  const record = recordOf(bp, path);

  managed.unshift({ source: parentPath, name: WELL_KNOWN.contains, target: path });
  if (bp.type === "r" || bp.type === "m") {
    const want = bp.type === "r" ? "rt" : "mt";
    const typePath = resolveAgainst(bp.typePath ?? "", tenant, parentPath, want);
    if (typePath.type !== want) throw badRequest(`${typePath} is not a ${SIMPLE_NAMES[want]}`);
    const typeEntity = await r.getEntity(tenant, typePath);
    if (!typeEntity) throw entityNotFound(typePath, `The ${SIMPLE_NAMES[want]} ${typePath} does not exist`);
    record.typePath = typePath;
    if (bp.type === "m" && record.collectionInterval === undefined) record.collectionInterval = typeEntity.collectionInterval;
    managed.push({ source: typePath, name: WELL_KNOWN.defines, target: path });
  }
  if (bp.type === "r" && parentPath.type === "r") {
    managed.push({ source: parentPath, name: WELL_KNOWN.isParentOf, target: path });
  }

  const requested: LinkRequest[] = [];
  const seen = new Set<string>();
  for (const [dir, links] of [
    ["out", bp.outgoing],
    ["in", bp.incoming],
  ] as const) {
    for (const [name, ends] of Object.entries(links ?? {})) {
      for (const end of ends) {
        const other = resolveAgainst(end, tenant, parentPath);
        const l = dir === "out" ? { source: path, name, target: other } : { source: other, name, target: path };
        const k = `${l.source}|${name}|${l.target}`;
        if (!seen.has(k)) requested.push(l);
        seen.add(k);
      }
    }
  }
  for (const l of requested) {
    const other = l.source.equals(path) ? l.target : l.source;
    if (!(await r.getEntity(tenant, other))) throw entityNotFound(other);
  }
  return { record, managed, requested };
}

/** Creates one entity from a blueprint under `parentPath`. */
export async function createEntity(
  tx: InventoryTx,
  changes: Changes,
  parentPath: CanonicalPath,
  bp: EntityBlueprint,
): Promise<EntityRecord> {
  const tenant = changes.tenant;
  const prepared = await prepareEntity(tx, tenant, parentPath, bp);
  // Checks that depend on the new entity existing (duplicates among requested links) run after insert;
  // a failure there rolls back the whole transaction.
  await tx.insertEntity(tenant, prepared.record);
  for (const l of prepared.managed) await insertLink(tx, changes, l);
  for (const l of prepared.requested) {
    await checkLink(tx, tenant, l);
    await insertLink(tx, changes, l);
  }
  changes.touch(prepared.record.path);
  const created = prepared.record.path;
  changes.emit("created", prepared.record.type, async () => {
    const now = await tx.getEntity(tenant, created);
    return now ? renderEntity(tx, tenant, now) : undefined;
  });
  return prepared.record;
}

/** Applies an update; fields absent from the update keep their values. */
export async function updateEntity(
  tx: InventoryTx,
  changes: Changes,
  path: CanonicalPath,
  update: EntityUpdate,
  raw: unknown,
): Promise<void> {
  const tenant = changes.tenant;
  const e = await getExisting(tx, tenant, path);
  if (e.type === "mt" && update.unit !== undefined && update.unit !== e.unit && (await inMetadataPack(tx, tenant, path))) {
    throw badRequest("Cannot update the unit of a metric type that is a part of a metadata pack.");
  }
  const original = await renderEntity(tx, tenant, e);
  const next: EntityRecord = { ...e };
  if (update.name !== undefined) next.name = update.name;
  if (update.properties !== undefined) {
    next.properties = Object.keys(update.properties).length ? update.properties : undefined;
  }
  if (update.collectionInterval !== undefined) next.collectionInterval = update.collectionInterval;
  if (update.unit !== undefined) next.unit = update.unit;
  if (update.hasValue) next.value = update.value ?? null;
  await tx.updateEntity(tenant, next);
  changes.touch(path);
  changes.emit("updated", e.type, async () => ({ originalEntity: original, update: raw }));
}

/**
 * Deletes an entity and everything it contains (recursively over `contains`), with every
 * relationship that touches them. Entities only associated with it survive.
 */
export async function deleteEntity(tx: InventoryTx, changes: Changes, path: CanonicalPath): Promise<void> {
  const tenant = changes.tenant;
  const e = await getExisting(tx, tenant, path);
  if ((e.type === "rt" || e.type === "mt") && (await inMetadataPack(tx, tenant, path))) {
    throw badRequest(`Cannot delete a ${SIMPLE_NAMES[e.type]} that is a part of a metadata pack.`);
  }
  const doomed = [e, ...(await tx.descendants(tenant, path))];
  const paths = doomed.map((d) => d.path);
  const rels = await tx.relationships(tenant, { ends: paths, direction: "both" });
  // Render before deleting: afterwards there is nothing left to read.
  for (const d of doomed) {
    const json = await renderEntity(tx, tenant, d);
    changes.emit("deleted", d.type, async () => json);
  }
  for (const rel of rels) changes.emit("deleted", "rl", async () => relationshipJson(rel));
  await tx.deleteEntities(tenant, paths);
  const parent = path.parent();
  if (parent) changes.touch(parent);
}

export async function getExisting(r: InventoryReader, tenant: string, path: CanonicalPath): Promise<EntityRecord> {
  const e = await r.getEntity(tenant, path);
  if (!e) throw entityNotFound(path);
  return e;
}

/** Reads an entity; the tenant itself always exists (it is created on first write). */
export async function readEntity(r: InventoryReader, tenant: string, path: CanonicalPath): Promise<EntityRecord> {
  if (path.type === "t" && path.id === tenant) return (await r.getEntity(tenant, path)) ?? { path, type: "t", id: tenant };
  return getExisting(r, tenant, path);
}

async function inMetadataPack(r: InventoryReader, tenant: string, path: CanonicalPath): Promise<boolean> {
  const rels = await r.relationships(tenant, { ends: [path], direction: "in", names: [WELL_KNOWN.incorporates] });
  return rels.some((rel) => rel.source.type === "mp");
}

/** Members of a metadata pack: existing resource or metric types directly under the tenant. */
async function packMembers(r: InventoryReader, tenant: string, tenantPath: CanonicalPath, members: string[]) {
  const out: EntityRecord[] = [];
  for (const m of members) {
    const p = resolveAgainst(m, tenant, tenantPath);
    if ((p.type !== "rt" && p.type !== "mt") || p.depth !== 2) {
      throw badRequest(`Metadata pack members must be resource or metric types directly under the tenant: ${p}`);
    }
    out.push(await getExisting(r, tenant, p));
  }
  return out;
}

/**
 * A metadata pack is identified by what it holds: the SHA-1 of its members' identity hashes,
 * resource types first, then metric types, each sorted by id.
 */
function packId(members: EntityRecord[]): string {
  const sorted = [...members].sort((a, b) =>
    a.type === b.type ? compareJava(a.id, b.id) : a.type === "rt" ? -1 : 1,
  );
  return sha1(sorted.map((m) => m.hashes?.identityHash ?? m.id).join(""));
}
