import type { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import type { EntityCode } from "../../src/inventory/segment-types.ts";
import type { EntityFilter, RelationshipFilter, Step } from "../../src/inventory/traversal/plan.ts";
import type { Inventory } from "./context.ts";
import type { Json } from "./render.ts";
import { runTraversal } from "./traversal.ts";

/*
 * Listings of the earlier interface, expressed as traversal plans so they run through the same
 * executor as `/traversal`.
 */

const ofType = (types: EntityCode[]): EntityFilter => ({ kind: "type", types });

function fromEntity(inv: Inventory, tenant: string, path: CanonicalPath, steps: Step[], result: "entities" | "relationships" = "entities") {
  return runTraversal(inv, tenant, { start: { kind: "entity", path }, steps, result });
}

/** Entities of `type` directly contained in `parent` (404 when the parent does not exist). */
export function listChildren(inv: Inventory, tenant: string, parent: CanonicalPath, type: EntityCode, more: EntityFilter[] = []): Promise<Json[]> {
  return fromEntity(inv, tenant, parent, [{ op: "contains" }, { op: "filter", filters: [ofType([type]), ...more] }]);
}

/** Entities of `type` anywhere in the tenant. */
export function listOfType(inv: Inventory, tenant: string, type: EntityCode): Promise<Json[]> {
  return runTraversal(inv, tenant, {
    start: { kind: "tenant" },
    steps: [
      { op: "recursive", over: "contains", filters: [] },
      { op: "filter", filters: [ofType([type])] },
    ],
    result: "entities",
  });
}

/** Entities at the other end of `name` relationships of `from` (out: `from` is the source). */
export function listLinked(
  inv: Inventory,
  tenant: string,
  from: CanonicalPath,
  name: string,
  direction: "out" | "in",
  filters: EntityFilter[] = [],
): Promise<Json[]> {
  return fromEntity(inv, tenant, from, [
    { op: "relationships", direction, filters: [{ kind: "name", names: [name] }] },
    { op: "ends", end: direction === "out" ? "target" : "source" },
    { op: "filter", filters },
  ]);
}

/** Everything reachable from `from` over `name` relationships, at any depth. */
export function listReachable(inv: Inventory, tenant: string, from: CanonicalPath, name: string, filters: EntityFilter[]): Promise<Json[]> {
  return fromEntity(inv, tenant, from, [
    { op: "recursive", over: name, filters: [] },
    { op: "filter", filters },
  ]);
}

/** Relationships of an entity in a direction, filtered. */
export function listRelationships(
  inv: Inventory,
  tenant: string,
  path: CanonicalPath,
  direction: "out" | "in" | "both",
  filters: RelationshipFilter[],
): Promise<Json[]> {
  return fromEntity(inv, tenant, path, [{ op: "relationships", direction, filters }], "relationships");
}
