import { badRequest } from "../../src/http/errors.ts";
import { parseWith } from "../../src/http/validate.ts";
import {
  parseBlueprint,
  parseRelationshipBlueprint,
  parseUpdate,
  relationshipUpdateSchema,
} from "../../src/inventory/blueprints.ts";
import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import type { RelationshipRecord } from "../../src/inventory/model.ts";
import type { EntityCode } from "../../src/inventory/segment-types.ts";
import { type Inventory, mutate, readOnly } from "./context.ts";
import { createEntity, deleteEntity, readEntity, resolveAgainst, updateEntity } from "./entities.ts";
import { checked, entityNotFound, relationshipNotFound } from "./failures.ts";
import { link, unlink, updateRelationship } from "./relationships.ts";
import { type Json, relationshipJson, renderEntities, renderEntity } from "./render.ts";

/*
 * The operations behind `/entity`: one function per verb, each one transaction. Entities and
 * relationships are both "elements": a path ending in `rl;<id>` names a relationship.
 */

export interface Created {
  /** Rendered elements, in request order. */
  items: Json[];
  /** Paths of the created elements, for Location headers. */
  paths: CanonicalPath[];
  /** True when the request body was an array (the response is then an array too). */
  many: boolean;
}

/** Creates one blueprint or an array of them under `parent`, all or nothing. */
export async function createEntities(
  inv: Inventory,
  tenant: string,
  parent: CanonicalPath,
  type: EntityCode,
  body: unknown,
): Promise<Created> {
  const many = Array.isArray(body);
  const list = many ? (body as unknown[]) : [body];
  if (list.length === 0) throw badRequest("Payload is empty");
  const blueprints = checked(() => list.map((b) => parseBlueprint(type, b)));
  return mutate(
    inv,
    tenant,
    async (tx, changes) => {
      const paths = [];
      for (const bp of blueprints) paths.push((await createEntity(tx, changes, parent, bp)).path);
      return paths;
    },
    async (tx, paths) => {
      // Re-read: the hashes are computed at the end of the transaction.
      const fresh = await Promise.all(paths.map((p) => tx.getEntity(tenant, p)));
      const items = await renderEntities(
        tx,
        tenant,
        fresh.filter((e) => e !== undefined),
      );
      return { items, paths, many };
    },
  );
}

/**
 * Creates relationships from the entity at `origin` (`POST /entity/{path}/relationship`); the other
 * end is resolved against `origin`. A `both` blueprint creates one relationship each way.
 */
export async function createRelationships(inv: Inventory, tenant: string, origin: CanonicalPath, body: unknown): Promise<Created> {
  const many = Array.isArray(body);
  const list = many ? (body as unknown[]) : [body];
  if (list.length === 0) throw badRequest("Payload is empty");
  const blueprints = checked(() => list.map(parseRelationshipBlueprint));
  return mutate(inv, tenant, async (tx, changes) => {
    const rels: RelationshipRecord[] = [];
    for (const rb of blueprints) {
      const other = resolveAgainst(rb.otherEnd, tenant, origin);
      if (rb.direction !== "incoming") rels.push(await link(tx, changes, { source: origin, name: rb.name, target: other, properties: rb.properties }));
      if (rb.direction !== "outgoing") rels.push(await link(tx, changes, { source: other, name: rb.name, target: origin, properties: rb.properties }));
    }
    return {
      items: rels.map(relationshipJson),
      paths: rels.map((r) => CanonicalPath.of([{ type: "rl", id: r.id }])),
      many: many || rels.length > 1,
    };
  });
}

/** The entity or relationship at `path`. */
export function getElement(inv: Inventory, tenant: string, path: CanonicalPath): Promise<Json> {
  return readOnly(inv, async (r) => {
    if (path.type === "rl") {
      const rel = await r.getRelationship(tenant, path.id);
      if (!rel) throw relationshipNotFound(path.id);
      return relationshipJson(rel);
    }
    return renderEntity(r, tenant, await readEntity(r, tenant, path));
  });
}

export async function updateElement(inv: Inventory, tenant: string, path: CanonicalPath, body: unknown): Promise<void> {
  if (path.type === "rl") {
    const u = parseWith(relationshipUpdateSchema, body, "relationship update");
    await mutate(inv, tenant, (tx, changes) => updateRelationship(tx, changes, path.id, u.properties ?? undefined));
    return;
  }
  const update = checked(() => parseUpdate(path.type as EntityCode, body));
  await mutate(inv, tenant, (tx, changes) => updateEntity(tx, changes, path, update, body));
}

export async function deleteElement(inv: Inventory, tenant: string, path: CanonicalPath): Promise<void> {
  if (path.type === "rl") {
    await mutate(inv, tenant, (tx, changes) => unlink(tx, changes, path.id));
    return;
  }
  if (path.type === "t") {
    if (path.id !== tenant) throw entityNotFound(path);
    await deleteTenant(inv, tenant);
    return;
  }
  await mutate(inv, tenant, (tx, changes) => deleteEntity(tx, changes, path));
}

/** Removes the tenant and all its data. */
export async function deleteTenant(inv: Inventory, tenant: string): Promise<void> {
  await mutate(inv, tenant, async (tx, changes) => {
    const root = CanonicalPath.tenant(tenant);
    const doomed = [(await tx.getEntity(tenant, root)) ?? { path: root, type: "t" as const, id: tenant }];
    doomed.push(...(await tx.descendants(tenant, root)));
    for (const d of doomed) {
      const json = await renderEntity(tx, tenant, d);
      changes.emit("deleted", d.type, async () => json);
    }
    await tx.deleteTenant(tenant);
  });
}
