// Namespace import: the named `z` export comes out undefined under vitest on Bun.
import * as z from "zod";
import { type EntityBlueprint, parseBlueprint } from "./blueprints.ts";
import { PathError } from "./path-codec.ts";
import { canFollow, type EntityCode, SIMPLE_NAMES } from "./segment-types.ts";

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

interface RawChild {
  data: unknown;
  children?: Record<string, RawChild[]> | null;
}

const rawChild: z.ZodType<RawChild> = z.lazy(() =>
  z.object({
    data: z.unknown(),
    children: z.partialRecord(z.enum(STRUCTURE_KEYS), z.array(rawChild)).nullish(),
  }),
) as z.ZodType<RawChild>;

export const structureSchema = z.object({
  type: z.enum(STRUCTURE_KEYS),
  data: z.unknown(),
  children: z.partialRecord(z.enum(STRUCTURE_KEYS), z.array(rawChild)).nullish(),
});

export const syncRequestSchema = z.object({
  configuration: z
    .object({
      syncedTypes: z.array(z.enum(["f", "rt", "mt", "ot", "r", "m", "d"])).nullish(),
      deepSearch: z.boolean().nullish(),
    })
    .nullish(),
  structure: structureSchema,
});

export interface SyncConfiguration {
  /** Types whose unmentioned entities are removed; all syncable types by default. */
  syncedTypes: EntityCode[];
  deepSearch: boolean;
}

export interface SyncRequest {
  configuration: SyncConfiguration;
  structure: InventoryStructure;
}

const ALL_SYNCED: EntityCode[] = ["f", "rt", "mt", "ot", "r", "m", "d"];

/** Validates a sync request body (throws ZodError or PathError on bad input). */
export function parseSyncRequest(json: unknown): SyncRequest {
  const raw = syncRequestSchema.parse(json);
  return {
    configuration: {
      syncedTypes: raw.configuration?.syncedTypes ?? ALL_SYNCED,
      deepSearch: raw.configuration?.deepSearch ?? false,
    },
    structure: parseStructure(raw.structure),
  };
}

/** Validates an inventory structure (throws ZodError or PathError on bad input). */
export function parseStructure(json: unknown): InventoryStructure {
  const raw = structureSchema.parse(json);
  const type = STRUCTURE_KEY_CODES[raw.type];
  return { root: buildNode(type, raw.data, raw.children ?? undefined, "structure") };
}

function buildNode(
  type: EntityCode,
  data: unknown,
  children: Record<string, RawChild[]> | undefined,
  where: string,
): StructureNode {
  const blueprint = parseBlueprint(type, data);
  const here = `${where}/${type};${blueprint.id}`;
  const out: StructureNode[] = [];
  const seen = new Set<string>();
  for (const key of STRUCTURE_KEYS) {
    const list = children?.[key];
    if (!list) continue;
    const code = STRUCTURE_KEY_CODES[key];
    if (!canFollow(type, code)) {
      throw new PathError(`A ${key} cannot be contained in a ${SIMPLE_NAMES[type]} (at ${here})`);
    }
    for (const c of list) {
      const node = buildNode(code, c.data, c.children ?? undefined, here);
      const k = `${code};${node.blueprint.id}`;
      if (seen.has(k)) throw new PathError(`Duplicate ${key} '${node.blueprint.id}' under ${here}`);
      seen.add(k);
      out.push(node);
    }
  }
  return { blueprint, children: out };
}

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
