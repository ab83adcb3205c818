/**
 * OTLP/HTTP JSON bodies (the protobuf JSON mapping of ExportMetricsServiceRequest): field names
 * in lowerCamelCase (the proto's snake_case names are accepted too), 64-bit integers as
 * decimal strings or numbers, enums as numbers or names, unknown fields ignored.
 */
import {
  type Attributes,
  type AttributeValue,
  type ExponentialPoint,
  type HistogramPoint,
  type MetricData,
  type MetricsRequest,
  type NumberPoint,
  OtlpDecodeError,
  type OtlpMetric,
  type SummaryPoint,
  TEMPORALITY,
} from "./metrics-model.ts";

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A field by its JSON name or its proto name. */
function get(o: Obj, camel: string): unknown {
  if (camel in o) return o[camel];
  return o[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];
}

function list(o: Obj, name: string, where: string): unknown[] {
  const v = get(o, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpDecodeError(`${where}.${name} must be an array`);
  return v;
}

function obj(v: unknown, where: string): Obj {
  if (!isObj(v)) throw new OtlpDecodeError(`${where} must be an object`);
  return v;
}

function int(v: unknown, where: string): number {
  if (v === undefined || v === null) return 0;
  const n = typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : typeof v === "number" && Number.isInteger(v) ? v : Number.NaN;
  if (Number.isNaN(n)) throw new OtlpDecodeError(`${where} must be an integer`);
  return n;
}

function double(v: unknown, where: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "string") {
    if (v === "NaN") return Number.NaN;
    if (v === "Infinity") return Number.POSITIVE_INFINITY;
    if (v === "-Infinity") return Number.NEGATIVE_INFINITY;
    const n = Number(v);
    if (v.trim() !== "" && !Number.isNaN(n)) return n;
  }
  throw new OtlpDecodeError(`${where} must be a number`);
}

/** Nanoseconds (a decimal string or a number) to whole milliseconds, exactly. */
function timeMs(v: unknown, where: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === "number" && Number.isFinite(v)) return Math.floor(v / 1e6);
  if (typeof v === "string" && /^\d{1,20}$/.test(v)) return v.length <= 6 ? 0 : Number(v.slice(0, -6));
  throw new OtlpDecodeError(`${where} must be nanoseconds (an integer string)`);
}

function temporality(v: unknown, where: string): number {
  if (typeof v === "string" && !/^\d+$/.test(v)) {
    const t = { AGGREGATION_TEMPORALITY_UNSPECIFIED: 0, AGGREGATION_TEMPORALITY_DELTA: TEMPORALITY.delta, AGGREGATION_TEMPORALITY_CUMULATIVE: TEMPORALITY.cumulative }[v];
    if (t === undefined) throw new OtlpDecodeError(`${where}: unknown aggregation temporality ${JSON.stringify(v)}`);
    return t;
  }
  return int(v, where);
}

function anyValue(v: unknown, where: string): AttributeValue {
  if (!isObj(v)) return undefined;
  if ("stringValue" in v || "string_value" in v) return String(get(v, "stringValue"));
  if ("boolValue" in v || "bool_value" in v) return get(v, "boolValue") === true;
  if ("intValue" in v || "int_value" in v) return int(get(v, "intValue"), `${where}.intValue`);
  if ("doubleValue" in v || "double_value" in v) return double(get(v, "doubleValue"), `${where}.doubleValue`);
  if ("bytesValue" in v || "bytes_value" in v) return String(get(v, "bytesValue"));
  if ("arrayValue" in v || "array_value" in v) return list(obj(get(v, "arrayValue"), where), "values", where).map((x, i) => anyValue(x, `${where}[${i}]`));
  if ("kvlistValue" in v || "kvlist_value" in v) return Object.fromEntries(attributes(obj(get(v, "kvlistValue"), where), where, "values"));
  return undefined;
}

function attributes(o: Obj, where: string, name = "attributes"): Attributes {
  return list(o, name, where).map((kv, i) => {
    const w = `${where}.${name}[${i}]`;
    const k = obj(kv, w);
    const key = get(k, "key");
    if (typeof key !== "string") throw new OtlpDecodeError(`${w}.key must be a string`);
    return [key, anyValue(get(k, "value"), `${w}.value`)];
  });
}

function base(o: Obj, w: string) {
  return { attributes: attributes(o, w), startMs: timeMs(get(o, "startTimeUnixNano"), `${w}.startTimeUnixNano`), timeMs: timeMs(get(o, "timeUnixNano"), `${w}.timeUnixNano`), flags: int(get(o, "flags"), `${w}.flags`) };
}

function numberPoint(v: unknown, w: string): NumberPoint {
  const o = obj(v, w);
  const asInt = get(o, "asInt");
  return { ...base(o, w), value: asInt !== undefined ? int(asInt, `${w}.asInt`) : double(get(o, "asDouble") ?? 0, `${w}.asDouble`) };
}

function histogramPoint(v: unknown, w: string): HistogramPoint {
  const o = obj(v, w);
  const sum = get(o, "sum");
  return {
    ...base(o, w),
    count: int(get(o, "count"), `${w}.count`),
    sum: sum === undefined || sum === null ? undefined : double(sum, `${w}.sum`),
    bucketCounts: list(o, "bucketCounts", w).map((c, i) => int(c, `${w}.bucketCounts[${i}]`)),
    explicitBounds: list(o, "explicitBounds", w).map((b, i) => double(b, `${w}.explicitBounds[${i}]`)),
  };
}

function buckets(v: unknown, w: string) {
  if (v === undefined || v === null) return { offset: 0, bucketCounts: [] };
  const o = obj(v, w);
  return { offset: int(get(o, "offset"), `${w}.offset`), bucketCounts: list(o, "bucketCounts", w).map((c, i) => int(c, `${w}.bucketCounts[${i}]`)) };
}

function exponentialPoint(v: unknown, w: string): ExponentialPoint {
  const o = obj(v, w);
  const sum = get(o, "sum");
  return {
    ...base(o, w),
    count: int(get(o, "count"), `${w}.count`),
    sum: sum === undefined || sum === null ? undefined : double(sum, `${w}.sum`),
    scale: int(get(o, "scale"), `${w}.scale`),
    zeroCount: int(get(o, "zeroCount"), `${w}.zeroCount`),
    zeroThreshold: double(get(o, "zeroThreshold") ?? 0, `${w}.zeroThreshold`),
    positive: buckets(get(o, "positive"), `${w}.positive`),
    negative: buckets(get(o, "negative"), `${w}.negative`),
  };
}

function summaryPoint(v: unknown, w: string): SummaryPoint {
  const o = obj(v, w);
  return {
    ...base(o, w),
    count: int(get(o, "count"), `${w}.count`),
    sum: double(get(o, "sum") ?? 0, `${w}.sum`),
    quantiles: list(o, "quantileValues", w).map((q, i) => {
      const qo = obj(q, `${w}.quantileValues[${i}]`);
      return { quantile: double(get(qo, "quantile") ?? 0, `${w}.quantileValues[${i}].quantile`), value: double(get(qo, "value") ?? 0, `${w}.quantileValues[${i}].value`) };
    }),
  };
}

function metric(v: unknown, w: string): OtlpMetric {
  const o = obj(v, w);
  const points = <P>(d: Obj, f: (v: unknown, w: string) => P, dw: string) => list(d, "dataPoints", dw).map((p, i) => f(p, `${dw}.dataPoints[${i}]`));
  let data: MetricData = { kind: "none" };
  const gauge = get(o, "gauge");
  const sum = get(o, "sum");
  const histogram = get(o, "histogram");
  const exponential = get(o, "exponentialHistogram");
  const summary = get(o, "summary");
  if (gauge !== undefined) data = { kind: "gauge", points: points(obj(gauge, `${w}.gauge`), numberPoint, `${w}.gauge`) };
  else if (sum !== undefined) {
    const d = obj(sum, `${w}.sum`);
    data = { kind: "sum", points: points(d, numberPoint, `${w}.sum`), temporality: temporality(get(d, "aggregationTemporality"), `${w}.sum.aggregationTemporality`), monotonic: get(d, "isMonotonic") === true };
  } else if (histogram !== undefined) {
    const d = obj(histogram, `${w}.histogram`);
    data = { kind: "histogram", points: points(d, histogramPoint, `${w}.histogram`), temporality: temporality(get(d, "aggregationTemporality"), `${w}.histogram.aggregationTemporality`) };
  } else if (exponential !== undefined) {
    const d = obj(exponential, `${w}.exponentialHistogram`);
    data = { kind: "exponentialHistogram", points: points(d, exponentialPoint, `${w}.exponentialHistogram`), temporality: temporality(get(d, "aggregationTemporality"), `${w}.exponentialHistogram.aggregationTemporality`) };
  } else if (summary !== undefined) data = { kind: "summary", points: points(obj(summary, `${w}.summary`), summaryPoint, `${w}.summary`) };
  const name = get(o, "name");
  const unit = get(o, "unit");
  return { name: typeof name === "string" ? name : "", unit: typeof unit === "string" ? unit : "", data };
}

/** Decodes a parsed JSON body; a body not of the request's shape throws OtlpDecodeError naming the place. */
export function decodeMetricsJson(doc: unknown): MetricsRequest {
  const root = obj(doc, "request");
  return {
    resources: list(root, "resourceMetrics", "request").map((rmv, i) => {
      const w = `resourceMetrics[${i}]`;
      const rm = obj(rmv, w);
      const res = get(rm, "resource");
      return {
        resource: res === undefined || res === null ? [] : attributes(obj(res, `${w}.resource`), `${w}.resource`),
        scopes: list(rm, "scopeMetrics", w).map((smv, j) => {
          const sw = `${w}.scopeMetrics[${j}]`;
          const sm = obj(smv, sw);
          const scope = isObj(get(sm, "scope")) ? (get(sm, "scope") as Obj) : {};
          return {
            scope: { name: String(get(scope, "name") ?? ""), version: String(get(scope, "version") ?? "") },
            metrics: list(sm, "metrics", sw).map((m, k) => metric(m, `${sw}.metrics[${k}]`)),
          };
        }),
      };
    }),
  };
}
