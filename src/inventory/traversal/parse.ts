import type { CanonicalPath } from "../canonical-path.ts";
import { decodeId, PathError } from "../path-codec.ts";
import { resolvePath } from "../path-resolve.ts";
import { type EntityCode, isEntityCode, segmentTypeFromName } from "../segment-types.ts";
import type { EntityFilter, RelationshipFilter, TraversalPlan } from "./plan.ts";

/*
 * The traversal language (spec "Traversal language"), one URL segment at a time:
 *   <code>;<id>[;filters]   entity type and id, plus filters
 *   filter[;filter...]       filters only (type=, id=, name=, cp=, propertyName=, propertyValue=,
 *                            relatedBy=, relatedTo=, relatedWith=, definedBy=)
 *   rl;<name>[;in|out][;relationship filters]   follow relationships (as the first segment: by id)
 *   recursive[;over=<name>][;filters]           descend repeatedly
 *   identical                                   same type and identity hash
 *   relationships[;in|out][;filters]            (last) the relationships of the current entities
 *   relationship                                (last, after rl;) the relationships followed
 *   entities[;filters]                          (last) the current entities
 * Two consecutive entity segments are joined by a move over `contains`; the first entity
 * segment moves from the tenant over `contains`.
 */

const ENTITY_FILTERS = new Set([
  "type",
  "id",
  "name",
  "cp",
  "propertyName",
  "propertyValue",
  "relatedBy",
  "relatedTo",
  "relatedWith",
  "definedBy",
]);
const RELATIONSHIP_FILTERS = new Set(["id", "name", "propertyName", "propertyValue", "sourceType", "targetType"]);

interface RawFilter {
  name: string;
  value: string;
  pos: number;
}

type Segment =
  | { kind: "entity"; type?: EntityCode; id?: string; filters: RawFilter[] }
  | { kind: "rl"; key: string; direction?: "in" | "out"; filters: RawFilter[] }
  | { kind: "recursive"; over?: string; filters: RawFilter[] }
  | { kind: "identical" }
  | { kind: "relationships"; singular: boolean; direction?: "in" | "out"; filters: RawFilter[] }
  | { kind: "entities"; filters: RawFilter[] };

/** Parses the part of a traversal URL after `/traversal/` (still percent-encoded) into a plan. */
export function parseTraversal(text: string, tenant: string): TraversalPlan {
  const raw = text.split("/").filter((s, i, all) => s !== "" || (i !== all.length - 1 && i !== 0));
  if (raw.some((s) => s === "")) throw new PathError("Empty segment in the traversal");
  const segments = raw.map(parseSegment);
  const plan: TraversalPlan = { start: { kind: "tenant" }, steps: [], result: "entities" };
  const ctx = { tenant };

  segments.forEach((seg, i) => {
    const first = i === 0;
    const last = i === segments.length - 1;
    const prev = segments[i - 1];
    const next = segments[i + 1];
    if ((seg.kind === "relationships" || seg.kind === "entities") && !last) {
      throw new PathError(`'${seg.kind === "entities" ? "entities" : "relationships"}' can only be the last segment`);
    }
    switch (seg.kind) {
      case "entity": {
        const filters: EntityFilter[] = [];
        if (seg.type) filters.push({ kind: "type", types: [seg.type] });
        if (seg.id !== undefined) filters.push({ kind: "id", ids: [seg.id] });
        filters.push(...entityFilters(seg.filters, ctx));
        // `t;<id>` first names the tenant itself rather than something it contains.
        const tenantItself = first && seg.type === "t";
        if (first && !tenantItself) plan.steps.push({ op: "contains" });
        plan.steps.push({ op: "filter", filters });
        if (next?.kind === "entity") plan.steps.push({ op: "contains" });
        break;
      }
      case "rl": {
        const direction = seg.direction ?? "out";
        const filters = relationshipFilters(seg.filters, ctx);
        if (first) {
          plan.start = { kind: "relationship", id: seg.key };
          if (filters.length) plan.steps.push({ op: "filterRelationships", filters });
        } else {
          plan.steps.push({ op: "relationships", direction, filters: [{ kind: "name", names: [seg.key] }, ...filters] });
        }
        const endsHere = next?.kind === "relationships";
        if (!endsHere) plan.steps.push({ op: "ends", end: direction === "out" ? "target" : "source" });
        break;
      }
      case "recursive":
        plan.steps.push({ op: "recursive", over: seg.over ?? "contains", filters: entityFilters(seg.filters, ctx) });
        break;
      case "identical":
        if (first) throw new PathError("'identical' needs entities before it");
        plan.steps.push({ op: "identical" });
        break;
      case "relationships": {
        const filters = relationshipFilters(seg.filters, ctx);
        if (prev?.kind === "rl") {
          // `rl;NAME/relationship(s)`: the relationships just followed are the result.
          if (seg.singular && (seg.direction || filters.length)) throw new PathError("'relationship' accepts no filters");
          if (filters.length) plan.steps.push({ op: "filterRelationships", filters });
        } else {
          if (seg.singular) throw new PathError("'relationship' can only follow an 'rl;<name>' segment");
          plan.steps.push({ op: "relationships", direction: seg.direction ?? "out", filters });
        }
        plan.result = "relationships";
        break;
      }
      case "entities":
        plan.steps.push({ op: "filter", filters: entityFilters(seg.filters, ctx) });
        break;
    }
  });
  return plan;
}

function parseSegment(text: string): Segment {
  const parts = text.split(";");
  const head = parts[0]!;
  const rest = parts.slice(1);
  if (head === "rl") {
    if (rest.length === 0 || rest[0] === "" || rest[0]!.includes("=")) {
      throw new PathError(`'rl' must be followed by a relationship name: '${text}'`);
    }
    const key = decodeId(rest[0]!);
    let i = 1;
    let direction: "in" | "out" | undefined;
    if (rest[1] === "in" || rest[1] === "out") {
      direction = rest[1];
      i = 2;
    } else if (rest[1] === "both") {
      throw new PathError("The direction 'both' is not supported in traversals; use 'in' or 'out'");
    }
    return { kind: "rl", key, direction, filters: rawFilters(rest.slice(i), i + 1, RELATIONSHIP_FILTERS, text) };
  }
  if (head === "recursive") {
    let over: string | undefined;
    let filters = rest;
    if (rest[0]?.startsWith("over=")) {
      over = decodeId(rest[0].slice("over=".length));
      if (over === "") throw new PathError("'over' needs a relationship name");
      filters = rest.slice(1);
    }
    return { kind: "recursive", over, filters: rawFilters(filters, 1, ENTITY_FILTERS, text) };
  }
  if (head === "identical") {
    if (rest.length) throw new PathError("'identical' accepts no filters");
    return { kind: "identical" };
  }
  if (head === "relationships" || head === "relationship") {
    let direction: "in" | "out" | undefined;
    let filters = rest;
    if (rest[0] === "in" || rest[0] === "out") {
      direction = rest[0];
      filters = rest.slice(1);
    }
    return {
      kind: "relationships",
      singular: head === "relationship",
      direction,
      filters: rawFilters(filters, 1, RELATIONSHIP_FILTERS, text),
    };
  }
  if (head === "entities") return { kind: "entities", filters: rawFilters(rest, 1, ENTITY_FILTERS, text) };
  if (isEntityCode(head) && rest.length > 0 && !rest[0]!.includes("=")) {
    const id = decodeId(rest[0]!);
    if (id === "") throw new PathError(`Empty id in '${text}'`);
    return { kind: "entity", type: head, id, filters: rawFilters(rest.slice(1), 2, ENTITY_FILTERS, text) };
  }
  return { kind: "entity", filters: rawFilters(parts, 0, ENTITY_FILTERS, text) };
}

function rawFilters(parts: string[], offset: number, allowed: Set<string>, text: string): RawFilter[] {
  return parts.map((p, i) => {
    const eq = p.indexOf("=");
    if (eq <= 0) throw new PathError(`'${p}' in '${text}' is not a filter of the form name=value`);
    const name = p.slice(0, eq);
    if (!allowed.has(name)) throw new PathError(`Unknown filter '${name}' in '${text}'`);
    return { name, value: decodeId(p.slice(eq + 1)), pos: offset + i };
  });
}

function values(filters: RawFilter[], name: string): RawFilter[] {
  return filters.filter((f) => f.name === name);
}

function typesOf(names: string[]): EntityCode[] {
  return names.map((n) => {
    const t = segmentTypeFromName(n);
    if (!t || t === "rl") throw new PathError(`Unknown entity type '${n}'`);
    return t;
  });
}

function pathOf(text: string, ctx: { tenant: string }): CanonicalPath {
  return resolvePath(text, { tenant: ctx.tenant });
}

/**
 * propertyName/propertyValue filters, as the spec's traversal table says: each propertyValue
 * belongs to the nearest propertyName before it, so repeated values after one name are
 * alternatives (`propertyName=a;propertyValue=x;propertyValue=y`: a is x or y); several names must
 * all match; a name without a value only requires the property; a value before any name is an
 * error.
 */
function propertyFilters(filters: RawFilter[]): ({ kind: "hasProperty"; name: string } | { kind: "propertyValues"; name: string; values: string[] })[] {
  const byName = new Map<string, string[]>();
  let current: string | undefined;
  for (const f of [...filters].sort((x, y) => x.pos - y.pos)) {
    if (f.name === "propertyName") {
      current = f.value;
      if (!byName.has(current)) byName.set(current, []);
    } else if (f.name === "propertyValue") {
      if (current === undefined) throw new PathError("Unmatched propertyValue filters: each propertyValue needs a propertyName before it");
      byName.get(current)!.push(f.value);
    }
  }
  return [...byName].map(([name, vs]) => (vs.length > 0 ? { kind: "propertyValues", name, values: vs } : { kind: "hasProperty", name }));
}

function entityFilters(filters: RawFilter[], ctx: { tenant: string }): EntityFilter[] {
  const out: EntityFilter[] = [];
  const types = values(filters, "type");
  if (types.length) out.push({ kind: "type", types: typesOf(types.map((t) => t.value)) });
  const ids = values(filters, "id");
  if (ids.length) out.push({ kind: "id", ids: ids.map((f) => f.value) });
  const names = values(filters, "name");
  if (names.length) out.push({ kind: "name", names: names.map((f) => f.value) });
  const cps = values(filters, "cp");
  if (cps.length) out.push({ kind: "path", paths: cps.map((f) => pathOf(f.value, ctx)) });
  out.push(...propertyFilters(filters));

  const bys = values(filters, "relatedBy");
  const tos = values(filters, "relatedTo");
  const withs = values(filters, "relatedWith");
  if (bys.length !== tos.length + withs.length) {
    throw new PathError("Each 'relatedBy' must be paired with one 'relatedTo' or 'relatedWith'");
  }
  let t = 0;
  let w = 0;
  for (const by of bys) {
    const to = tos[t];
    const wi = withs[w];
    if (to && (!wi || to.pos < wi.pos)) {
      out.push({ kind: "related", name: by.value, other: pathOf(to.value, ctx), direction: "out" });
      t++;
    } else {
      out.push({ kind: "related", name: by.value, other: pathOf(wi!.value, ctx), direction: "in" });
      w++;
    }
  }
  const definedBy = values(filters, "definedBy");
  if (definedBy.length > 1) throw new PathError("Only one 'definedBy' filter is allowed per segment");
  if (definedBy[0]) out.push({ kind: "related", name: "defines", other: pathOf(definedBy[0].value, ctx), direction: "in" });
  return out;
}

function relationshipFilters(filters: RawFilter[], _ctx: { tenant: string }): RelationshipFilter[] {
  const out: RelationshipFilter[] = [];
  const ids = values(filters, "id");
  if (ids.length) out.push({ kind: "id", ids: ids.map((f) => f.value) });
  const names = values(filters, "name");
  if (names.length) out.push({ kind: "name", names: names.map((f) => f.value) });
  out.push(...propertyFilters(filters));
  const st = values(filters, "sourceType");
  if (st.length) out.push({ kind: "sourceType", types: typesOf(st.map((f) => f.value)) });
  const tt = values(filters, "targetType");
  if (tt.length) out.push({ kind: "targetType", types: typesOf(tt.map((f) => f.value)) });
  return out;
}
