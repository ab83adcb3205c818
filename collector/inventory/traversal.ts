import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import type { EntityRecord, Properties, RelationshipRecord } from "../../src/inventory/model.ts";
import type { EntityFilter, RelationshipFilter, Step, TraversalPlan } from "../../src/inventory/traversal/plan.ts";
import type { InventoryReader } from "../store/inventory/types.ts";
import { type Inventory, readOnly } from "./context.ts";
import { readEntity } from "./entities.ts";
import { type Json, relationshipJson, renderEntities } from "./render.ts";

type Current = { kind: "entities"; list: EntityRecord[] } | { kind: "relationships"; list: RelationshipRecord[] };

/** Runs a traversal plan against the store and renders the resulting entities or relationships. */
export function runTraversal(inv: Inventory, tenant: string, plan: TraversalPlan): Promise<Json[]> {
  return readOnly(inv, async (r) => {
    let cur: Current;
    if (plan.start.kind === "tenant") {
      cur = { kind: "entities", list: [await readEntity(r, tenant, CanonicalPath.tenant(tenant))] };
    } else if (plan.start.kind === "entity") {
      // Unlike the tenant, a named starting entity must exist (404 otherwise).
      cur = { kind: "entities", list: [await readEntity(r, tenant, plan.start.path)] };
    } else {
      const rel = await r.getRelationship(tenant, plan.start.id);
      cur = { kind: "relationships", list: rel ? [rel] : [] };
    }
    for (const step of plan.steps) cur = await apply(r, tenant, cur, step);
    return cur.kind === "entities" ? renderEntities(r, tenant, cur.list) : cur.list.map(relationshipJson);
  });
}

function entities(cur: Current, step: Step): EntityRecord[] {
  if (cur.kind !== "entities") throw new Error(`step ${step.op} needs entities`);
  return cur.list;
}

function relationships(cur: Current, step: Step): RelationshipRecord[] {
  if (cur.kind !== "relationships") throw new Error(`step ${step.op} needs relationships`);
  return cur.list;
}

function uniqueEntities(list: EntityRecord[]): EntityRecord[] {
  const seen = new Map<string, EntityRecord>();
  for (const e of list) if (!seen.has(e.path.toString())) seen.set(e.path.toString(), e);
  return [...seen.values()];
}

async function apply(r: InventoryReader, tenant: string, cur: Current, step: Step): Promise<Current> {
  switch (step.op) {
    case "contains": {
      const parents = entities(cur, step);
      return { kind: "entities", list: parents.length ? await r.children(tenant, parents.map((e) => e.path)) : [] };
    }
    case "filter":
      return { kind: "entities", list: await filterEntities(r, tenant, entities(cur, step), step.filters) };
    case "identical": {
      const list = entities(cur, step);
      const out: EntityRecord[] = [];
      const byType = new Map<EntityRecord["type"], string[]>();
      for (const e of list) if (e.hashes) byType.set(e.type, [...(byType.get(e.type) ?? []), e.hashes.identityHash]);
      for (const [type, hashes] of byType) out.push(...(await r.byIdentityHash(tenant, type, hashes)));
      return { kind: "entities", list: uniqueEntities(out) };
    }
    case "recursive":
      return { kind: "entities", list: await recurse(r, tenant, entities(cur, step), step.over, step.filters) };
    case "relationships": {
      const list = entities(cur, step);
      const rels = list.length
        ? await r.relationships(tenant, { ends: list.map((e) => e.path), direction: step.direction })
        : [];
      return { kind: "relationships", list: rels.filter((rel) => relationshipMatches(rel, step.filters)) };
    }
    case "filterRelationships":
      return { kind: "relationships", list: relationships(cur, step).filter((rel) => relationshipMatches(rel, step.filters)) };
    case "ends": {
      const rels = relationships(cur, step);
      const paths = rels.map((rel) => (step.end === "target" ? rel.target : rel.source));
      const found = new Map((await r.getEntities(tenant, paths)).map((e) => [e.path.toString(), e]));
      return { kind: "entities", list: uniqueEntities(paths.map((p) => found.get(p.toString())).filter((e) => e !== undefined)) };
    }
  }
}

/** Everything reachable over `over`, breadth first; entities failing the filters are neither kept nor descended into. */
async function recurse(
  r: InventoryReader,
  tenant: string,
  start: EntityRecord[],
  over: string,
  filters: EntityFilter[],
): Promise<EntityRecord[]> {
  const seen = new Set(start.map((e) => e.path.toString()));
  const out: EntityRecord[] = [];
  let frontier = start;
  while (frontier.length) {
    const paths = frontier.map((e) => e.path);
    let next: EntityRecord[];
    if (over === "contains") next = await r.children(tenant, paths);
    else {
      const rels = await r.relationships(tenant, { ends: paths, direction: "out", names: [over] });
      next = await r.getEntities(
        tenant,
        rels.map((rel) => rel.target),
      );
    }
    next = uniqueEntities(next).filter((e) => !seen.has(e.path.toString()));
    for (const e of next) seen.add(e.path.toString());
    frontier = await filterEntities(r, tenant, next, filters);
    out.push(...frontier);
  }
  return out;
}

function propertyMatches(props: Properties | undefined, name: string, values?: string[]): boolean {
  if (!props || !Object.hasOwn(props, name)) return false;
  if (!values) return true;
  const v = props[name];
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return values.includes(text);
}

async function filterEntities(
  r: InventoryReader,
  tenant: string,
  list: EntityRecord[],
  filters: EntityFilter[],
): Promise<EntityRecord[]> {
  let out = list;
  for (const f of filters) {
    if (out.length === 0) break;
    switch (f.kind) {
      case "type":
        out = out.filter((e) => f.types.includes(e.type));
        break;
      case "id":
        out = out.filter((e) => f.ids.includes(e.id));
        break;
      case "name":
        out = out.filter((e) => e.name !== undefined && f.names.includes(e.name));
        break;
      case "path": {
        const wanted = new Set(f.paths.map(String));
        out = out.filter((e) => wanted.has(e.path.toString()));
        break;
      }
      case "hasProperty":
        out = out.filter((e) => propertyMatches(e.properties, f.name));
        break;
      case "propertyValues":
        out = out.filter((e) => propertyMatches(e.properties, f.name, f.values));
        break;
      case "related": {
        // Ask from the named entity's side: one indexed lookup instead of one per candidate.
        const rels = await r.relationships(tenant, {
          ends: [f.other],
          direction: f.direction === "out" ? "in" : "out",
          names: [f.name],
        });
        const ok = new Set(rels.map((rel) => (f.direction === "out" ? rel.source : rel.target).toString()));
        out = out.filter((e) => ok.has(e.path.toString()));
        break;
      }
    }
  }
  return out;
}

function relationshipMatches(rel: RelationshipRecord, filters: RelationshipFilter[]): boolean {
  return filters.every((f) => relationshipFilterMatches(rel, f));
}

function relationshipFilterMatches(rel: RelationshipRecord, f: RelationshipFilter): boolean {
  switch (f.kind) {
    case "id":
      return f.ids.includes(rel.id);
    case "name":
      return f.names.includes(rel.name);
    case "hasProperty":
      return propertyMatches(rel.properties, f.name);
    case "propertyValues":
      return propertyMatches(rel.properties, f.name, f.values);
    case "sourceType":
      return (f.types as string[]).includes(rel.source.type);
    case "targetType":
      return (f.types as string[]).includes(rel.target.type);
  }
}
