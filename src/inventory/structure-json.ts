import type { EntityBlueprint } from "./blueprints.ts";
import { PathError } from "./path-codec.ts";
import { type EntityCode, SIMPLE_NAMES } from "./segment-types.ts";

// Structures and their JSON form, without validation (no zod): what an agent needs to send one.
/**
 * An inventory structure: a blueprint with the blueprints of everything it contains, as the
 * agent discovers it and as `POST /sync` receives it (research §3.6):
 * `{"type":"feed","data":{...},"children":{"resource":[{"data":{...},"children":{...}}]}}`.
 */
export interface StructureNode {
  blueprint: EntityBlueprint;
  children: StructureNode[];
}

export interface InventoryStructure {
  root: StructureNode;
}

/** The keys of `children`, in the order upstream writes them (types first, then what uses them). */
export const STRUCTURE_KEYS = [
  "feed",
  "resourceType",
  "metricType",
  "operationType",
  "metric",
  "resource",
  "dataEntity",
] as const;
export type StructureKey = (typeof STRUCTURE_KEYS)[number];

export const STRUCTURE_KEY_CODES: Readonly<Record<StructureKey, EntityCode>> = {
  feed: "f",
  resourceType: "rt",
  metricType: "mt",
  operationType: "ot",
  metric: "m",
  resource: "r",
  dataEntity: "d",
};

const structureKeyOf = (code: EntityCode): StructureKey | undefined =>
  STRUCTURE_KEYS.find((k) => STRUCTURE_KEY_CODES[k] === code);

/** The JSON form of a structure (what the agent sends), children grouped by key in upstream order. */
export function structureToJson(s: InventoryStructure): unknown {
  const key = structureKeyOf(s.root.blueprint.type);
  if (!key) throw new PathError(`A ${SIMPLE_NAMES[s.root.blueprint.type]} cannot be the root of a structure`);
  return { type: key, data: blueprintJson(s.root.blueprint), children: childrenJson(s.root.children) };
}

function childrenJson(nodes: StructureNode[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const key of STRUCTURE_KEYS) {
    const list = nodes.filter((n) => n.blueprint.type === STRUCTURE_KEY_CODES[key]);
    if (list.length) out[key] = list.map((n) => ({ data: blueprintJson(n.blueprint), children: childrenJson(n.children) }));
  }
  return out;
}

/** The wire form of a blueprint (inverse of parseBlueprint). */
export function blueprintJson(b: EntityBlueprint): Record<string, unknown> {
  const out: Record<string, unknown> = b.type === "d" ? { role: b.id } : { id: b.id };
  if (b.name !== undefined) out.name = b.name;
  if (b.properties !== undefined) out.properties = b.properties;
  if (b.type === "r") out.resourceTypePath = b.typePath;
  if (b.type === "m") out.metricTypePath = b.typePath;
  if (b.collectionInterval !== undefined) out.collectionInterval = b.collectionInterval;
  if (b.metricDataType !== undefined) out.type = b.metricDataType;
  if (b.unit !== undefined) out.unit = b.unit;
  if (b.type === "d") out.value = b.value;
  return out;
}
