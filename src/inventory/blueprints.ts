// Namespace import: the named `z` export comes out undefined under vitest on Bun.
import * as z from "zod";
import { jsonInteger } from "../http/json-scalars.ts";
import { METRIC_DATA_TYPES, METRIC_UNITS, type MetricDataType, type MetricUnit, type Properties } from "./model.ts";
import type { EntityCode } from "./segment-types.ts";

/** What the client asks to create, validated and normalized, with paths still as written. */
export interface EntityBlueprint {
  type: EntityCode;
  id: string;
  name?: string;
  properties?: Properties;
  /** Relationships to create with the entity: name → paths of the other ends. */
  outgoing?: Record<string, string[]>;
  incoming?: Record<string, string[]>;
  /** resourceTypePath (resource) or metricTypePath (metric), unresolved. */
  typePath?: string;
  collectionInterval?: number;
  metricDataType?: MetricDataType;
  unit?: MetricUnit;
  value?: unknown;
  /** Metadata pack members (paths of resource and metric types), unresolved. */
  members?: string[];
}

export type Direction = "outgoing" | "incoming" | "both";

export interface RelationshipBlueprint {
  name: string;
  otherEnd: string;
  direction: Direction;
  properties?: Properties;
}

const id = z.string().min(1, "must not be empty");
const properties = z.record(z.string(), z.unknown());
const links = z.record(z.string(), z.array(z.string().min(1)));
/** Seconds; a numeric string too, as every numeric field of the interfaces (src/http/json-scalars.ts). */
const interval = jsonInteger.pipe(z.number().nonnegative());
const optionalName = z.string().nullish();

const common = {
  id,
  name: optionalName,
  properties: properties.nullish(),
  outgoing: links.nullish(),
  incoming: links.nullish(),
};

const generalSchema = z.object(common);

const resourceSchema = z.object({ ...common, resourceTypePath: z.string().min(1) });

/** Without collectionInterval a metric takes its metric type's (upstream). */
const metricSchema = z.object({ ...common, metricTypePath: z.string().min(1), collectionInterval: interval.nullish() });

/** Accepts the enum name (`GAUGE`) in any case, or the display name (`counter_rate`) under `metricDataType`. */
const dataType = z
  .string()
  .transform((s) => s.toUpperCase())
  .pipe(z.enum(METRIC_DATA_TYPES));

const metricTypeSchema = z
  .object({
    ...common,
    type: dataType.optional(),
    metricDataType: dataType.optional(),
    unit: z.enum(METRIC_UNITS),
    collectionInterval: interval,
  })
  .refine((b) => b.type !== undefined || b.metricDataType !== undefined, {
    message: "type is required (GAUGE, AVAILABILITY, COUNTER or COUNTER_RATE)",
    path: ["type"],
  });

/** Data entities are identified by their role; `id` is accepted as an alias. */
const dataSchema = z
  .object({
    role: z.string().min(1).optional(),
    id: z.string().min(1).optional(),
    name: optionalName,
    properties: properties.nullish(),
    value: z.unknown().optional(),
    outgoing: links.nullish(),
    incoming: links.nullish(),
  })
  .refine((b) => b.role !== undefined || b.id !== undefined, { message: "role is required", path: ["role"] });

const metadataPackSchema = z.object({
  members: z.array(z.string().min(1)).min(1, "a metadata pack needs at least one member"),
  name: optionalName,
  properties: properties.nullish(),
});

export const relationshipBlueprintSchema = z.object({
  name: z.string().min(1),
  otherEnd: z.string().min(1),
  direction: z.enum(["outgoing", "incoming", "both"]).default("outgoing"),
  properties: properties.nullish(),
});

function base(type: EntityCode, b: z.infer<typeof generalSchema>): EntityBlueprint {
  return {
    type,
    id: b.id,
    name: b.name ?? undefined,
    properties: b.properties ?? undefined,
    outgoing: b.outgoing ?? undefined,
    incoming: b.incoming ?? undefined,
  };
}

/** Validates the JSON of a blueprint of the given type; throws a ZodError on bad input. */
export function parseBlueprint(type: EntityCode, json: unknown): EntityBlueprint {
  switch (type) {
    case "r": {
      const b = resourceSchema.parse(json);
      return { ...base(type, b), typePath: b.resourceTypePath };
    }
    case "m": {
      const b = metricSchema.parse(json);
      return { ...base(type, b), typePath: b.metricTypePath, collectionInterval: b.collectionInterval ?? undefined };
    }
    case "mt": {
      const b = metricTypeSchema.parse(json);
      return {
        ...base(type, b),
        metricDataType: (b.type ?? b.metricDataType)!,
        unit: b.unit,
        collectionInterval: b.collectionInterval,
      };
    }
    case "d": {
      const b = dataSchema.parse(json);
      return {
        type,
        id: (b.role ?? b.id)!,
        name: b.name ?? undefined,
        properties: b.properties ?? undefined,
        value: b.value,
        outgoing: b.outgoing ?? undefined,
        incoming: b.incoming ?? undefined,
      };
    }
    case "mp": {
      const b = metadataPackSchema.parse(json);
      // The id of a pack is derived from its members when it is created.
      return { type, id: "", name: b.name ?? undefined, properties: b.properties ?? undefined, members: b.members };
    }
    default:
      return base(type, generalSchema.parse(json));
  }
}

export function parseRelationshipBlueprint(json: unknown): RelationshipBlueprint {
  const b = relationshipBlueprintSchema.parse(json);
  return { name: b.name, otherEnd: b.otherEnd, direction: b.direction, properties: b.properties ?? undefined };
}

/** An update: fields present replace the stored ones, absent fields are kept. */
export interface EntityUpdate {
  name?: string;
  properties?: Properties;
  collectionInterval?: number;
  unit?: MetricUnit;
  value?: unknown;
  /** True when `value` was given (a data entity's value may be set to null). */
  hasValue?: boolean;
}

const updateSchema = z.object({
  name: optionalName,
  properties: properties.nullish(),
  collectionInterval: interval.nullish(),
  unit: z.enum(METRIC_UNITS).nullish(),
  value: z.unknown().optional(),
});

export function parseUpdate(type: EntityCode, json: unknown): EntityUpdate {
  const u = updateSchema.parse(json);
  const out: EntityUpdate = {};
  if (u.name != null) out.name = u.name;
  if (u.properties != null) out.properties = u.properties;
  if ((type === "m" || type === "mt") && u.collectionInterval != null) out.collectionInterval = u.collectionInterval;
  if (type === "mt" && u.unit != null) out.unit = u.unit;
  if (type === "d" && json !== null && typeof json === "object" && "value" in json) {
    out.value = u.value;
    out.hasValue = true;
  }
  return out;
}

export const relationshipUpdateSchema = z.object({ properties: properties.nullish() });
