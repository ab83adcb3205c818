/**
 * Fast acceptance of write bodies whose points are already normalized (numbers as numbers,
 * availability lower-case, tags strings, ids trimmed, no extra keys). These checks accept only
 * input that the write schemas (schemas.ts) accept and return unchanged, so accepted input is
 * used as is; anything else goes to the schemas, which convert lenient values or explain.
 * Why: at a million points per second the schema library's per-point work costs a fifth or
 * more of an ingest thread; these loops cost a few percent. Tested for equivalence with
 * property tests.
 */
import { LIMITS, pointTagsWithinLimits, timestampInRange } from "./limits.ts";
import { AVAILABILITY_VALUES, MAX_STRING_LENGTH, type DataPoint, type MetricType, type MetricWrite } from "./model.ts";

const availability = new Set<unknown>(AVAILABILITY_VALUES);

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** True when every key of `o` is one of the names given. */
export function onlyKeys(o: object, a: string, b: string, c: string): boolean {
  for (const k in o) if (k !== a && k !== b && k !== c) return false;
  return true;
}

function stringTags(t: unknown): boolean {
  if (t === undefined) return true;
  if (!isPlainObject(t)) return false;
  for (const k in t) if (typeof t[k] !== "string") return false;
  return pointTagsWithinLimits(t);
}

const valueOk: Record<MetricType, (v: unknown) => boolean> = {
  gauge: (v) => typeof v === "number" && Number.isFinite(v),
  counter: (v) => Number.isSafeInteger(v),
  availability: (v) => availability.has(v),
  string: (v) => typeof v === "string" && v.length <= MAX_STRING_LENGTH,
};

/** The same, where a gauge or counter value may also be a staleness marker (NaN; agent protocol version 3). */
const markerOk: Record<MetricType, (v: unknown) => boolean> = {
  gauge: (v) => typeof v === "number" && !(v === Number.POSITIVE_INFINITY || v === Number.NEGATIVE_INFINITY),
  counter: (v) => Number.isSafeInteger(v) || (typeof v === "number" && Number.isNaN(v)),
  availability: valueOk.availability,
  string: valueOk.string,
};

export function isMetricType(t: unknown): t is MetricType {
  return typeof t === "string" && Object.hasOwn(valueOk, t);
}

export function isNormalizedId(id: unknown): id is string {
  return typeof id === "string" && id.length > 0 && id.length <= LIMITS.metricIdLength && id.trim() === id;
}

/**
 * True when `points` is an array of normalized points of `type` (possibly empty); with
 * `markers`, gauge and counter values may also be staleness markers (NaN).
 */
export function isNormalizedPoints(type: MetricType, points: unknown, markers = false): points is DataPoint[] {
  if (!Array.isArray(points)) return false;
  const ok = (markers ? markerOk : valueOk)[type];
  for (const p of points) {
    if (!isPlainObject(p) || !onlyKeys(p, "timestamp", "value", "tags")) return false;
    const t = p.timestamp;
    if (!Number.isSafeInteger(t) || !timestampInRange(t as number) || !ok(p.value) || !stringTags(p.tags)) return false;
  }
  return true;
}

/** The points of a normalized `POST /{type}/{id}/raw` body (a non-empty array), or undefined when it needs the schema. */
export function normalizedPointsBody(type: MetricType, body: unknown): DataPoint[] | undefined {
  return Array.isArray(body) && body.length > 0 && isNormalizedPoints(type, body) ? body : undefined;
}

/**
 * The writes of a normalized `POST /{type}/raw` body (`[{id, data?, dataPoints?}]`, non-empty),
 * or undefined when the body needs the schema.
 */
export function normalizedMetricsBody(type: MetricType, body: unknown): MetricWrite[] | undefined {
  if (!Array.isArray(body) || body.length === 0) return undefined;
  const writes: MetricWrite[] = new Array(body.length);
  for (let i = 0; i < body.length; i++) {
    const m = body[i];
    if (!isPlainObject(m) || !onlyKeys(m, "id", "data", "dataPoints") || !isNormalizedId(m.id)) return undefined;
    const { data, dataPoints } = m;
    if (data !== undefined && !isNormalizedPoints(type, data)) return undefined;
    if (dataPoints !== undefined && !isNormalizedPoints(type, dataPoints)) return undefined;
    const points = data === undefined ? (dataPoints ?? []) : dataPoints === undefined ? data : [...data, ...dataPoints];
    writes[i] = { type, id: m.id, points };
  }
  return writes;
}
