/**
 * Fast acceptance of a data chunk in the normalized form the agent sends; see
 * src/metrics/normalized.ts. A chunk it refuses goes to the write schemas.
 */
import type { MetricWrite } from "../metrics/model.ts";
import { isMetricType, isNormalizedId, isNormalizedPoints, isPlainObject, onlyKeys } from "../metrics/normalized.ts";

/**
 * True when `chunk` is a non-empty array of normalized metric writes, each with at least one
 * point; with `markers` (a version 3 batch), gauge and counter values may be staleness markers.
 */
export function isNormalizedChunk(chunk: unknown, markers = false): chunk is MetricWrite[] {
  if (!Array.isArray(chunk) || chunk.length === 0) return false;
  for (const w of chunk) {
    if (!isPlainObject(w) || !onlyKeys(w, "type", "id", "points")) return false;
    if (!isMetricType(w.type) || !isNormalizedId(w.id)) return false;
    if (!Array.isArray(w.points) || w.points.length === 0 || !isNormalizedPoints(w.type, w.points, markers)) return false;
  }
  return true;
}
