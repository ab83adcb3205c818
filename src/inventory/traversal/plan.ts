import type { CanonicalPath } from "../canonical-path.ts";
import type { EntityCode } from "../segment-types.ts";

/**
 * A traversal as a query plan: a starting set and steps that filter it or move it along the
 * graph. The set holds entities or relationships; steps say which they expect.
 */

/** Filters on entities; all filters of a step must hold (values inside one filter are alternatives). */
export type EntityFilter =
  | { kind: "type"; types: EntityCode[] }
  | { kind: "id"; ids: string[] }
  | { kind: "name"; names: string[] }
  | { kind: "path"; paths: CanonicalPath[] }
  | { kind: "hasProperty"; name: string }
  | { kind: "propertyValues"; name: string; values: string[] }
  /** out: the entity has a relationship `name` to `other`; in: `other` has one to the entity. */
  | { kind: "related"; name: string; other: CanonicalPath; direction: "out" | "in" };

export type RelationshipFilter =
  | { kind: "id"; ids: string[] }
  | { kind: "name"; names: string[] }
  | { kind: "hasProperty"; name: string }
  | { kind: "propertyValues"; name: string; values: string[] }
  | { kind: "sourceType"; types: EntityCode[] }
  | { kind: "targetType"; types: EntityCode[] };

export type Step =
  /** Entities → the entities they contain. */
  | { op: "contains" }
  /** Entities → those passing the filters. */
  | { op: "filter"; filters: EntityFilter[] }
  /** Entities → all entities of the same type with the same identity hash. */
  | { op: "identical" }
  /** Entities → everything reachable over `over` (at any depth) that passes the filters; failing entities are not descended into. */
  | { op: "recursive"; over: string; filters: EntityFilter[] }
  /** Entities → their outgoing (out), incoming (in) or all (both) relationships that pass the filters. */
  | { op: "relationships"; direction: "out" | "in" | "both"; filters: RelationshipFilter[] }
  /** Relationships → those passing the filters. */
  | { op: "filterRelationships"; filters: RelationshipFilter[] }
  /** Relationships → their targets or sources. */
  | { op: "ends"; end: "target" | "source" };

/** Where a traversal begins: the tenant, a relationship (by id), or one entity (plans built in code). */
export type Start = { kind: "tenant" } | { kind: "relationship"; id: string } | { kind: "entity"; path: CanonicalPath };

export interface TraversalPlan {
  start: Start;
  steps: Step[];
  /** What the result set holds. */
  result: "entities" | "relationships";
}
