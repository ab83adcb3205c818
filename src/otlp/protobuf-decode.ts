/**
 * OTLP/HTTP protobuf bodies (ExportMetricsServiceRequest) read by a reader for their fixed
 * schema, the approach of the remote-write decoder (src/prometheus/protobuf.ts): no generated
 * code and no runtime dependency, bounds-checked, unknown fields skipped. Why not protobufjs:
 * measured in bench/otlp-decode.ts and docs/inputs.md.
 *
 * Field numbers (opentelemetry-proto metrics/v1, common/v1, resource/v1):
 *   ExportMetricsServiceRequest { resource_metrics = 1 }
 *   ResourceMetrics { resource = 1; scope_metrics = 2 }       Resource { attributes = 1 }
 *   ScopeMetrics { scope = 1; metrics = 2 }                    InstrumentationScope { name = 1; version = 2 }
 *   Metric { name = 1; description = 2; unit = 3; gauge = 5; sum = 7; histogram = 9; exponential_histogram = 10; summary = 11 }
 *   Gauge { data_points = 1 }   Sum { data_points = 1; aggregation_temporality = 2; is_monotonic = 3 }
 *   Histogram, ExponentialHistogram { data_points = 1; aggregation_temporality = 2 }   Summary { data_points = 1 }
 *   NumberDataPoint { start_time_unix_nano = 2; time_unix_nano = 3; as_double = 4; as_int = 6 (sfixed64); attributes = 7; flags = 8 }
 *   HistogramDataPoint { start = 2; time = 3; count = 4 (fixed64); sum = 5; bucket_counts = 6 (packed fixed64);
 *                        explicit_bounds = 7 (packed double); attributes = 9; flags = 10 }
 *   ExponentialHistogramDataPoint { attributes = 1; start = 2; time = 3; count = 4; sum = 5; scale = 6 (sint32);
 *                        zero_count = 7 (fixed64); positive = 8; negative = 9; flags = 10; zero_threshold = 14 }
 *     Buckets { offset = 1 (sint32); bucket_counts = 2 (packed uint64) }
 *   SummaryDataPoint { start = 2; time = 3; count = 4 (fixed64); sum = 5; quantile_values = 6; attributes = 7; flags = 8 }
 *     ValueAtQuantile { quantile = 1; value = 2 }
 *   KeyValue { key = 1; value = 2 }   AnyValue { string = 1; bool = 2; int = 3; double = 4; array = 5; kvlist = 6; bytes = 7 }
 */
import { ProtobufError, ProtoReader } from "../prometheus/protobuf.ts";
import {
  type Attributes,
  type AttributeValue,
  type ExponentialPoint,
  type HistogramPoint,
  type MetricData,
  type MetricsRequest,
  nanosToMs,
  type NumberPoint,
  OtlpDecodeError,
  type OtlpMetric,
  type ResourceMetrics,
  type ScopeMetrics,
  type SummaryPoint,
} from "./metrics-model.ts";

/** Buffer's native one-byte-per-character read, on any Uint8Array (ASCII text is its own latin1). */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice(this: Uint8Array, s: number, e: number): string }).latin1Slice;

/** The reader with what OTLP adds to remote write's wire types: fixed 32/64-bit words and zigzag. */
class OtlpReader extends ProtoReader {
  private readonly dv = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);

  private need(n: number): void {
    if (this.pos + n > this.end) throw new ProtobufError("truncated fixed-width field");
  }

  /** A fixed64 nanosecond time, in ms. */
  timeMs(): number {
    this.need(8);
    const lo = this.dv.getUint32(this.pos, true);
    const hi = this.dv.getUint32(this.pos + 4, true);
    this.pos += 8;
    return nanosToMs(lo, hi);
  }

  /** A fixed64 count (exact below 2^53). */
  fixed64(): number {
    this.need(8);
    const lo = this.dv.getUint32(this.pos, true);
    const hi = this.dv.getUint32(this.pos + 4, true);
    this.pos += 8;
    return hi * 4294967296 + lo;
  }

  /** An sfixed64. */
  sfixed64(): number {
    this.need(8);
    const lo = this.dv.getUint32(this.pos, true);
    const hi = this.dv.getInt32(this.pos + 4, true);
    this.pos += 8;
    return hi * 4294967296 + lo;
  }

  /** A string; short ASCII ones (attribute keys and values, mostly) without the UTF-8 decoder. */
  text(): string {
    const [s, e] = this.bytes();
    if (e - s <= 64) {
      for (let i = s; i < e; i++) if (this.buf[i]! >= 0x80) return this.decodeUtf8(s, e);
      return latin1Slice.call(this.buf, s, e);
    }
    return this.decodeUtf8(s, e);
  }

  private decodeUtf8(s: number, e: number): string {
    try {
      return OtlpReader.utf8.decode(this.buf.subarray(s, e));
    } catch {
      throw new ProtobufError("string field is not valid UTF-8");
    }
  }

  private static readonly utf8 = new TextDecoder("utf-8", { fatal: true });

  sint32(): number {
    const v = this.varint();
    return v % 2 === 1 ? -(v + 1) / 2 : v / 2;
  }

  /** Enters a length-delimited submessage: the reader is at its start; returns its end (set `pos` to it after). */
  enter(): number {
    const len = this.varint();
    const end = this.pos + len;
    if (end > this.end) throw new ProtobufError("length-delimited field runs past its message");
    return end;
  }

  /** The key and value of an attribute (a KeyValue submessage). */
  attribute(): [string, AttributeValue] {
    const end = this.enter();
    const kv = keyValue(this, end);
    this.pos = end;
    return kv;
  }

  /** A length-delimited submessage: runs `f` over its content, then moves past it. */
  sub<T>(f: (end: number) => T): T {
    const [s, e] = this.bytes();
    const at = this.pos;
    this.pos = s;
    const v = f(e);
    this.pos = at;
    return v;
  }

  /** Packed (or, as proto3 also allows, unpacked) repeated values. */
  repeated(key: number, field: number, out: number[], read: () => number): boolean {
    if (key === ((field << 3) | 2)) {
      this.sub((end) => {
        while (this.pos < end) out.push(read());
      });
      return true;
    }
    return false;
  }
}

function anyValue(r: OtlpReader, end: number): AttributeValue {
  let v: AttributeValue;
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x0a) v = r.text();
    else if (key === 0x10) v = r.varint() !== 0;
    else if (key === 0x18) v = r.int64();
    else if (key === 0x21) v = r.double();
    else if (key === 0x2a || key === 0x32) {
      const kv = key === 0x32;
      v = r.sub((e) => {
        const items: [string, AttributeValue][] = [];
        const list: AttributeValue[] = [];
        while (r.pos < e) {
          const k = r.varint();
          if (k !== 0x0a) {
            r.skip(k & 7);
            continue;
          }
          if (kv) items.push(r.sub((e2) => keyValue(r, e2)));
          else list.push(r.sub((e2) => anyValue(r, e2)));
        }
        return kv ? Object.fromEntries(items) : list;
      });
    } else if (key === 0x3a) {
      const [s, e] = r.bytes();
      v = Buffer.from(r.buf.subarray(s, e)).toString("base64");
    } else r.skip(key & 7);
  }
  return v;
}

function keyValue(r: OtlpReader, end: number): [string, AttributeValue] {
  let k = "";
  let v: AttributeValue;
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x0a) k = r.text();
    else if (key === 0x12) {
      const e = r.enter();
      v = anyValue(r, e);
      r.pos = e;
    }
    else r.skip(key & 7);
  }
  return [k, v];
}

function numberPoint(r: OtlpReader, end: number): NumberPoint {
  const p: NumberPoint = { attributes: [], startMs: 0, timeMs: 0, flags: 0, value: 0 };
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x11) p.startMs = r.timeMs();
    else if (key === 0x19) p.timeMs = r.timeMs();
    else if (key === 0x21) p.value = r.double();
    else if (key === 0x31) p.value = r.sfixed64();
    else if (key === 0x3a) p.attributes.push(r.attribute());
    else if (key === 0x40) p.flags = r.varint();
    else r.skip(key & 7);
  }
  return p;
}

function histogramPoint(r: OtlpReader, end: number): HistogramPoint {
  const p: HistogramPoint = { attributes: [], startMs: 0, timeMs: 0, flags: 0, count: 0, bucketCounts: [], explicitBounds: [] };
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x11) p.startMs = r.timeMs();
    else if (key === 0x19) p.timeMs = r.timeMs();
    else if (key === 0x21) p.count = r.fixed64();
    else if (key === 0x29) p.sum = r.double();
    else if (key === 0x31) p.bucketCounts.push(r.fixed64());
    else if (key === 0x39) p.explicitBounds.push(r.double());
    else if (r.repeated(key, 6, p.bucketCounts, () => r.fixed64()) || r.repeated(key, 7, p.explicitBounds, () => r.double())) continue;
    else if (key === 0x4a) p.attributes.push(r.attribute());
    else if (key === 0x50) p.flags = r.varint();
    else r.skip(key & 7);
  }
  return p;
}

function buckets(r: OtlpReader, end: number): { offset: number; bucketCounts: number[] } {
  const b = { offset: 0, bucketCounts: [] as number[] };
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x08) b.offset = r.sint32();
    else if (key === 0x10) b.bucketCounts.push(r.varint());
    else if (r.repeated(key, 2, b.bucketCounts, () => r.varint())) continue;
    else r.skip(key & 7);
  }
  return b;
}

function exponentialPoint(r: OtlpReader, end: number): ExponentialPoint {
  const p: ExponentialPoint = { attributes: [], startMs: 0, timeMs: 0, flags: 0, count: 0, scale: 0, zeroCount: 0, zeroThreshold: 0, positive: { offset: 0, bucketCounts: [] }, negative: { offset: 0, bucketCounts: [] } };
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x0a) p.attributes.push(r.attribute());
    else if (key === 0x11) p.startMs = r.timeMs();
    else if (key === 0x19) p.timeMs = r.timeMs();
    else if (key === 0x21) p.count = r.fixed64();
    else if (key === 0x29) p.sum = r.double();
    else if (key === 0x30) p.scale = r.sint32();
    else if (key === 0x39) p.zeroCount = r.fixed64();
    else if (key === 0x42) p.positive = r.sub((e) => buckets(r, e));
    else if (key === 0x4a) p.negative = r.sub((e) => buckets(r, e));
    else if (key === 0x50) p.flags = r.varint();
    else if (key === 0x71) p.zeroThreshold = r.double();
    else r.skip(key & 7);
  }
  return p;
}

function summaryPoint(r: OtlpReader, end: number): SummaryPoint {
  const p: SummaryPoint = { attributes: [], startMs: 0, timeMs: 0, flags: 0, count: 0, sum: 0, quantiles: [] };
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x11) p.startMs = r.timeMs();
    else if (key === 0x19) p.timeMs = r.timeMs();
    else if (key === 0x21) p.count = r.fixed64();
    else if (key === 0x29) p.sum = r.double();
    else if (key === 0x32) {
      p.quantiles.push(
        r.sub((e) => {
          const q = { quantile: 0, value: 0 };
          while (r.pos < e) {
            const k = r.varint();
            if (k === 0x09) q.quantile = r.double();
            else if (k === 0x11) q.value = r.double();
            else r.skip(k & 7);
          }
          return q;
        }),
      );
    } else if (key === 0x3a) p.attributes.push(r.attribute());
    else if (key === 0x40) p.flags = r.varint();
    else r.skip(key & 7);
  }
  return p;
}

/** The data points (field 1) and temporality (field 2) and monotonicity (field 3) of a data message. */
function dataOf<P>(r: OtlpReader, end: number, point: (r: OtlpReader, end: number) => P): { points: P[]; temporality: number; monotonic: boolean } {
  const out = { points: [] as P[], temporality: 0, monotonic: false };
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x0a) {
      const e = r.enter();
      out.points.push(point(r, e));
      r.pos = e;
    }
    else if (key === 0x10) out.temporality = r.varint();
    else if (key === 0x18) out.monotonic = r.varint() !== 0;
    else r.skip(key & 7);
  }
  return out;
}

function metric(r: OtlpReader, end: number): OtlpMetric {
  const m: OtlpMetric = { name: "", unit: "", data: { kind: "none" } };
  while (r.pos < end) {
    const key = r.varint();
    let data: MetricData | undefined;
    if (key === 0x0a) m.name = r.text();
    else if (key === 0x1a) m.unit = r.text();
    else if (key === 0x2a) data = { kind: "gauge", points: r.sub((e) => dataOf(r, e, numberPoint)).points };
    else if (key === 0x3a) data = r.sub((e) => ({ kind: "sum" as const, ...dataOf(r, e, numberPoint) }));
    else if (key === 0x4a) {
      const d = r.sub((e) => dataOf(r, e, histogramPoint));
      data = { kind: "histogram", points: d.points, temporality: d.temporality };
    } else if (key === 0x52) {
      const d = r.sub((e) => dataOf(r, e, exponentialPoint));
      data = { kind: "exponentialHistogram", points: d.points, temporality: d.temporality };
    } else if (key === 0x5a) data = { kind: "summary", points: r.sub((e) => dataOf(r, e, summaryPoint)).points };
    else r.skip(key & 7);
    if (data) m.data = data;
  }
  return m;
}

function scopeMetrics(r: OtlpReader, end: number): ScopeMetrics {
  const s: ScopeMetrics = { scope: { name: "", version: "" }, metrics: [] };
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x0a) {
      s.scope = r.sub((e) => {
        const sc = { name: "", version: "" };
        while (r.pos < e) {
          const k = r.varint();
          if (k === 0x0a) sc.name = r.text();
          else if (k === 0x12) sc.version = r.text();
          else r.skip(k & 7);
        }
        return sc;
      });
    } else if (key === 0x12) s.metrics.push(r.sub((e) => metric(r, e)));
    else r.skip(key & 7);
  }
  return s;
}

function resourceMetrics(r: OtlpReader, end: number): ResourceMetrics {
  const rm: ResourceMetrics = { resource: [], scopes: [] };
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x0a) {
      rm.resource = r.sub((e) => {
        const attrs: Attributes = [];
        while (r.pos < e) {
          const k = r.varint();
          if (k === 0x0a) attrs.push(r.attribute());
          else r.skip(k & 7);
        }
        return attrs;
      });
    } else if (key === 0x12) rm.scopes.push(r.sub((e) => scopeMetrics(r, e)));
    else r.skip(key & 7);
  }
  return rm;
}

/** Decodes an ExportMetricsServiceRequest; a malformed body throws OtlpDecodeError. */
export function decodeMetricsProtobuf(body: Uint8Array): MetricsRequest {
  const r = new OtlpReader(body);
  const out: MetricsRequest = { resources: [] };
  try {
    while (!r.done()) {
      const key = r.varint();
      if (key === 0x0a) out.resources.push(r.sub((e) => resourceMetrics(r, e)));
      else r.skip(key & 7);
    }
    if (r.pos !== r.end) throw new ProtobufError("truncated field");
  } catch (e) {
    if (e instanceof ProtobufError) throw new OtlpDecodeError(`malformed protobuf ExportMetricsServiceRequest: ${e.message}`);
    throw e;
  }
  return out;
}
