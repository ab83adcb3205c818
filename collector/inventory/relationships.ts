import { badRequest, conflict } from "../../src/http/errors.ts";
import type { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import type { Properties, RelationshipRecord } from "../../src/inventory/model.ts";
import { WELL_KNOWN } from "../../src/inventory/model.ts";
import type { InventoryReader, InventoryTx } from "../store/inventory/types.ts";
import type { Changes } from "./changes.ts";
import { relationshipJson } from "./render.ts";
import { entityNotFound, relationshipNotFound } from "./failures.ts";

/** Relationship names the inventory maintains itself; users may neither create nor delete them. */
const MANAGED = new Set<string>([WELL_KNOWN.contains, WELL_KNOWN.defines, WELL_KNOWN.hasData]);
/** Relationship names that must not form loops. */
const ACYCLIC = new Set<string>([WELL_KNOWN.contains, WELL_KNOWN.isParentOf]);

export interface LinkRequest {
  source: CanonicalPath;
  name: string;
  target: CanonicalPath;
  properties?: Properties;
}

/**
 * Checks that a user may create the relationship (both ends exist in the tenant, the name is not
 * managed, no loop, no duplicate, upstream's cardinality rules) without writing anything.
 */
export async function checkLink(r: InventoryReader, tenant: string, req: LinkRequest): Promise<void> {
  if (MANAGED.has(req.name)) throw badRequest(`Relationship '${req.name}' cannot be explicitly created.`);
  for (const end of [req.source, req.target]) {
    if (end.type === "rl") throw badRequest("A relationship cannot be an end of another relationship");
    if (!(await exists(r, tenant, end))) throw entityNotFound(end);
  }
  if (ACYCLIC.has(req.name)) await checkNoLoop(r, tenant, req);
  if (req.name === WELL_KNOWN.incorporates) {
    if (req.source.type === "mp") {
      throw badRequest("Manual manipulation of the 'incorporates' relationships of a metadata pack is not allowed.");
    }
    if (req.source.type === "e" && req.target.type === "f") {
      const owners = await r.relationships(tenant, { ends: [req.target], direction: "in", names: [req.name] });
      if (owners.some((o) => o.source.type === "e" && !o.source.equals(req.source))) {
        throw badRequest(`Feed ${req.target} is already incorporated in another environment.`);
      }
    }
  }
  if (await r.findRelationship(tenant, req.source, req.name, req.target)) {
    throw conflict(`Relationship '${req.name}' from ${req.source} to ${req.target} already exists`);
  }
}

/** Creates a relationship a user asked for, after `checkLink`. */
export async function link(tx: InventoryTx, changes: Changes, req: LinkRequest): Promise<RelationshipRecord> {
  await checkLink(tx, changes.tenant, req);
  return insertLink(tx, changes, req);
}

/** Writes a relationship with no checks (the inventory's own `contains`, `defines`, ...). */
export async function insertLink(tx: InventoryTx, changes: Changes, req: LinkRequest): Promise<RelationshipRecord> {
  const rel: RelationshipRecord = {
    id: changes.newId(),
    name: req.name,
    source: req.source,
    target: req.target,
  };
  if (req.properties && Object.keys(req.properties).length) rel.properties = req.properties;
  await tx.insertRelationship(changes.tenant, rel);
  changes.emit("created", "rl", async () => relationshipJson(rel));
  return rel;
}

export async function updateRelationship(
  tx: InventoryTx,
  changes: Changes,
  id: string,
  properties: Properties | undefined,
): Promise<void> {
  const rel = await tx.getRelationship(changes.tenant, id);
  if (!rel) throw relationshipNotFound(id);
  if (MANAGED.has(rel.name)) throw badRequest(`Relationship '${rel.name}' cannot be explicitly updated.`);
  const updated: RelationshipRecord = { ...rel, properties: properties ?? undefined };
  await tx.updateRelationship(changes.tenant, updated);
  changes.emit("updated", "rl", async () => ({
    originalEntity: relationshipJson(rel),
    update: { properties: properties ?? {} },
  }));
}

export async function unlink(tx: InventoryTx, changes: Changes, id: string): Promise<void> {
  const rel = await tx.getRelationship(changes.tenant, id);
  if (!rel) throw relationshipNotFound(id);
  if (MANAGED.has(rel.name)) throw badRequest(`Relationship '${rel.name}' cannot be explicitly deleted.`);
  if (rel.name === WELL_KNOWN.isParentOf || rel.name === WELL_KNOWN.incorporates) {
    // Containment implies both; dropping only the weaker link would contradict the tree.
    const contains = await tx.findRelationship(changes.tenant, rel.source, WELL_KNOWN.contains, rel.target);
    if (contains) {
      throw badRequest(
        `'${rel.name}' relationship cannot be deleted while there is also a 'contains' relationship between the same entities.`,
      );
    }
  }
  if (rel.name === WELL_KNOWN.incorporates && rel.source.type === "mp") {
    throw badRequest("Manual manipulation of the 'incorporates' relationships of a metadata pack is not allowed.");
  }
  await tx.deleteRelationships(changes.tenant, [id]);
  changes.emit("deleted", "rl", async () => relationshipJson(rel));
}

async function exists(r: InventoryReader, tenant: string, path: CanonicalPath): Promise<boolean> {
  return (await r.getEntity(tenant, path)) !== undefined;
}

/** A new source→target link must not close a cycle: the source must not be reachable from the target. */
async function checkNoLoop(r: InventoryReader, tenant: string, req: LinkRequest): Promise<void> {
  if (req.source.equals(req.target)) {
    throw badRequest(`Relationship '${req.name}' cannot both start and end on the same entity.`);
  }
  const seen = new Set<string>([req.target.toString()]);
  let frontier = [req.target];
  while (frontier.length) {
    const next: CanonicalPath[] = [];
    for (const rel of await r.relationships(tenant, { ends: frontier, direction: "out", names: [req.name] })) {
      if (rel.target.equals(req.source)) {
        throw badRequest(`The source and the target would form a loop over '${req.name}' relationships.`);
      }
      const k = rel.target.toString();
      if (!seen.has(k)) {
        seen.add(k);
        next.push(rel.target);
      }
    }
    frontier = next;
  }
}
