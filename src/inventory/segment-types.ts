/**
 * The segment types of inventory paths: short codes, names, and which type may follow which
 * in a canonical path (research §3.1).
 */

/** Codes of entity types (everything that can be the last segment of a canonical path except `rl`). */
export const ENTITY_CODES = ["t", "e", "f", "rt", "mt", "ot", "r", "m", "d", "mp"] as const;
export type EntityCode = (typeof ENTITY_CODES)[number];
export type SegmentCode = EntityCode | "rl";

export function isEntityCode(s: string): s is EntityCode {
  return (ENTITY_CODES as readonly string[]).includes(s);
}

export function isSegmentCode(s: string): s is SegmentCode {
  return s === "rl" || isEntityCode(s);
}

/** Which segment types may follow a given one in a canonical path ("root" is the empty path). */
export const VALID_PROGRESSIONS: Readonly<Record<"root" | SegmentCode, readonly SegmentCode[]>> = {
  root: ["t", "rl"],
  t: ["e", "mt", "rt", "f", "mp"],
  e: ["m", "r"],
  f: ["m", "r", "mt", "rt"],
  rt: ["d", "ot"],
  ot: ["d"],
  r: ["r", "d", "m"],
  d: [],
  m: [],
  mt: [],
  mp: [],
  rl: [],
};

export function canFollow(prev: SegmentCode | undefined, next: SegmentCode): boolean {
  return VALID_PROGRESSIONS[prev ?? "root"].includes(next);
}

/** Simple names as used in `POST /entity/{parent}/{type}`, bulk keys and structure keys. */
export const SIMPLE_NAMES: Readonly<Record<SegmentCode, string>> = {
  t: "tenant",
  e: "environment",
  f: "feed",
  rt: "resourceType",
  mt: "metricType",
  ot: "operationType",
  r: "resource",
  m: "metric",
  d: "dataEntity",
  mp: "metadataPack",
  rl: "relationship",
};

/** Class-like names (`Resource`, `ResourceType`), accepted by type filters and the deprecated interface. */
export const CLASS_NAMES: Readonly<Record<SegmentCode, string>> = {
  t: "Tenant",
  e: "Environment",
  f: "Feed",
  rt: "ResourceType",
  mt: "MetricType",
  ot: "OperationType",
  r: "Resource",
  m: "Metric",
  d: "DataEntity",
  mp: "MetadataPack",
  rl: "Relationship",
};

const BY_NAME = new Map<string, SegmentCode>();
for (const code of [...ENTITY_CODES, "rl"] as SegmentCode[]) {
  BY_NAME.set(code, code);
  BY_NAME.set(SIMPLE_NAMES[code].toLowerCase(), code);
  BY_NAME.set(CLASS_NAMES[code].toLowerCase(), code);
}
// `POST /entity/{parent}/data` uses the short name of data entities.
BY_NAME.set("data", "d");

/**
 * A segment type from a code (`r`), a simple name (`resource`, `resourceType`) or a class name
 * (`ResourceType`); names are matched case-insensitively. Undefined when unknown.
 */
export function segmentTypeFromName(name: string): SegmentCode | undefined {
  return BY_NAME.get(name) ?? BY_NAME.get(name.toLowerCase());
}

/** Types whose entities carry identity, content and sync hashes and can be synchronized. */
export const SYNCABLE_CODES: readonly EntityCode[] = ["f", "rt", "mt", "ot", "r", "m", "d"];

export function isSyncable(code: SegmentCode): boolean {
  return (SYNCABLE_CODES as readonly string[]).includes(code);
}

/** The roles (ids) a data entity may have under each parent type. */
export const DATA_ROLES: Readonly<Partial<Record<EntityCode, readonly [string, string]>>> = {
  r: ["configuration", "connectionConfiguration"],
  rt: ["configurationSchema", "connectionConfigurationSchema"],
  ot: ["returnType", "parameterTypes"],
};
