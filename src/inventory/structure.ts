// Namespace import: the named `z` export comes out undefined under vitest on Bun.
import * as z from "zod";
import { parseBlueprint } from "./blueprints.ts";
import { PathError } from "./path-codec.ts";
import { canFollow, type EntityCode, SIMPLE_NAMES } from "./segment-types.ts";
import { type InventoryStructure, STRUCTURE_KEY_CODES, STRUCTURE_KEYS, type StructureNode } from "./structure-json.ts";

export * from "./structure-json.ts";

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

