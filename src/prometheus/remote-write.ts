/**
 * Prometheus remote write 1.0: a snappy-compressed (block format) protobuf WriteRequest.
 *   WriteRequest { repeated TimeSeries timeseries = 1; repeated MetricMetadata metadata = 3; }
 *   TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; (exemplars = 3, histograms = 4 ignored) }
 *   Label        { string name = 1; string value = 2; }
 *   Sample       { double value = 1; int64 timestamp = 2; }
 *   MetricMetadata { type = 1; string metric_family_name = 2; string help = 4; string unit = 5; }
 */
import { ProtobufError, ProtoReader } from "./protobuf.ts";
import { type SnappyScratch, snappyLength, uncompressSnappy } from "./snappy.ts";
import { isStaleMarkerAt } from "./staleness.ts";

export interface RemoteSample {
  value: number;
  /** ms */
  timestamp: number;
  /** The value is Prometheus' staleness marker (checked on its bits: other NaNs are values). */
  stale?: true;
}

export interface RemoteSeries {
  labels: Record<string, string>;
  samples: RemoteSample[];
  /** Native histogram samples present (not stored by Outpost). */
  histograms: number;
}

export interface RemoteMetadata {
  /** Prometheus' MetricType enum name, lower case (counter, gauge, histogram, …). */
  type: string;
  name: string;
  help: string;
  unit: string;
}

export interface WriteRequest {
  series: RemoteSeries[];
  metadata: RemoteMetadata[];
}

export class RemoteWriteError extends Error {}

const METRIC_TYPES = ["unknown", "counter", "gauge", "histogram", "gaugehistogram", "summary", "info", "stateset"];

function label(r: ProtoReader, end: number): [string, string] {
  let name = "";
  let value = "";
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x0a) name = r.string();
    else if (key === 0x12) value = r.string();
    else r.skip(key & 7);
  }
  return [name, value];
}

function sample(r: ProtoReader, end: number): RemoteSample {
  let value = 0;
  let timestamp = 0;
  let stale = false;
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x09) {
      // The marker is known by its bits, which the double read would not keep.
      stale = r.pos + 8 <= r.end && isStaleMarkerAt(r.buf, r.pos);
      value = r.double();
    } else if (key === 0x10) timestamp = r.int64();
    else r.skip(key & 7);
  }
  return stale ? { value, timestamp, stale } : { value, timestamp };
}

function timeSeries(r: ProtoReader, end: number): RemoteSeries {
  const labels: Record<string, string> = {};
  const samples: RemoteSample[] = [];
  let histograms = 0;
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x0a) {
      const [s, e] = r.bytes();
      r.pos = s;
      const [n, v] = label(r, e);
      r.pos = e;
      if (n in labels) throw new RemoteWriteError(`duplicate label name ${JSON.stringify(n)} in one series`);
      labels[n] = v;
    } else if (key === 0x12) {
      const [s, e] = r.bytes();
      r.pos = s;
      samples.push(sample(r, e));
      r.pos = e;
    } else if (key === 0x22) {
      r.skip(2);
      histograms++;
    } else r.skip(key & 7);
  }
  return { labels, samples, histograms };
}

/** A MetricMetadata message's fields (also read, and so checked, by remote-write-columns.ts). */
export function metadata(r: ProtoReader, end: number): RemoteMetadata {
  const m: RemoteMetadata = { type: "unknown", name: "", help: "", unit: "" };
  while (r.pos < end) {
    const key = r.varint();
    if (key === 0x08) m.type = METRIC_TYPES[r.varint()] ?? "unknown";
    else if (key === 0x12) m.name = r.string();
    else if (key === 0x22) m.help = r.string();
    else if (key === 0x2a) m.unit = r.string();
    else r.skip(key & 7);
  }
  return m;
}

/** Decodes an uncompressed WriteRequest. */
export function decodeWriteRequest(buf: Uint8Array): WriteRequest {
  const r = new ProtoReader(buf);
  const out: WriteRequest = { series: [], metadata: [] };
  try {
    while (!r.done()) {
      const key = r.varint();
      if (key === 0x0a || key === 0x1a) {
        const [s, e] = r.bytes();
        r.pos = s;
        if (key === 0x0a) out.series.push(timeSeries(r, e));
        else out.metadata.push(metadata(r, e));
        r.pos = e;
      } else r.skip(key & 7);
    }
  } catch (e) {
    if (e instanceof ProtobufError) throw new RemoteWriteError(`malformed protobuf WriteRequest: ${e.message}`);
    throw e;
  }
  return out;
}

/**
 * Decompresses (snappy block format) and decodes a remote-write request body; a body that would
 * decompress to more than `maxBytes` is refused before it is decompressed.
 */
export function decodeRemoteWrite(body: Uint8Array, maxBytes = Number.POSITIVE_INFINITY): WriteRequest {
  return decodeWriteRequest(uncompressRemoteWrite(body, maxBytes));
}

/**
 * The uncompressed WriteRequest of a remote-write body (see decodeRemoteWrite); with `scratch`,
 * in its reused buffer (see uncompressSnappy) when it fits.
 */
export function uncompressRemoteWrite(body: Uint8Array, maxBytes = Number.POSITIVE_INFINITY, scratch?: SnappyScratch): Uint8Array {
  const length = snappyLength(body);
  if (length > maxBytes) throw new RemoteWriteError(`body decompresses to ${length} bytes; at most ${maxBytes} are accepted (--max-request-body)`);
  let raw: Uint8Array;
  try {
    raw = uncompressSnappy(body, maxBytes, scratch);
  } catch (e) {
    throw new RemoteWriteError(`body is not snappy-compressed (block format): ${(e as Error).message}`);
  }
  return raw;
}
