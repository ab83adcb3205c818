import type { EntityBlueprint } from "./blueprints.ts";
import type { CanonicalPath } from "./canonical-path.ts";
import type { EntityRecord } from "./model.ts";

/**
 * The entity a blueprint describes, at `path`, with its type path already resolved. Empty
 * properties are no properties; a data entity without a value holds null.
 */
export function recordOf(bp: EntityBlueprint, path: CanonicalPath, typePath?: CanonicalPath): EntityRecord {
  const e: EntityRecord = { path, type: bp.type, id: path.id };
  if (bp.name !== undefined) e.name = bp.name;
  if (bp.properties && Object.keys(bp.properties).length) e.properties = bp.properties;
  if (bp.collectionInterval !== undefined) e.collectionInterval = bp.collectionInterval;
  if (bp.metricDataType !== undefined) e.metricDataType = bp.metricDataType;
  if (bp.unit !== undefined) e.unit = bp.unit;
  if (bp.type === "d") e.value = bp.value ?? null;
  if (typePath) e.typePath = typePath;
  return e;
}
