/** Remote-write request bodies built with protobufjs (an independent encoder) and snappy. */
import protobuf from "protobufjs";
import { compressSync } from "snappy";

const root = protobuf.Root.fromJSON({
  nested: {
    prometheus: {
      nested: {
        WriteRequest: { fields: { timeseries: { rule: "repeated", type: "TimeSeries", id: 1 }, metadata: { rule: "repeated", type: "MetricMetadata", id: 3 } } },
        TimeSeries: { fields: { labels: { rule: "repeated", type: "Label", id: 1 }, samples: { rule: "repeated", type: "Sample", id: 2 } } },
        Label: { fields: { name: { type: "string", id: 1 }, value: { type: "string", id: 2 } } },
        Sample: { fields: { value: { type: "double", id: 1 }, timestamp: { type: "int64", id: 2 } } },
        MetricMetadata: { fields: { type: { type: "int32", id: 1 }, metricFamilyName: { type: "string", id: 2 }, help: { type: "string", id: 4 }, unit: { type: "string", id: 5 } } },
      },
    },
  },
});
export const WriteRequestType = root.lookupType("prometheus.WriteRequest");

export interface SeriesIn {
  labels: Record<string, string>;
  /** "stale": Prometheus' staleness marker (the NaN 0x7ff0000000000002, as Prometheus sends it). */
  samples: [timestamp: number, value: number | "stale"][];
}

/**
 * Stands for a marker while protobufjs encodes (a number cannot carry the marker's NaN bits,
 * see src/prometheus/staleness.ts); its 8 bytes are then replaced by the marker's.
 */
const MARKER_STAND_IN = 3 * 2 ** -1000;
const standInBytes = new Uint8Array(Float64Array.of(MARKER_STAND_IN).buffer);
const STALE_NAN_BYTES = [0x02, 0, 0, 0, 0, 0, 0xf0, 0x7f];

/** The protobuf bytes of a WriteRequest. */
export function encodeWriteRequest(series: SeriesIn[]): Uint8Array {
  const bytes = WriteRequestType.encode(
    WriteRequestType.create({
      timeseries: series.map((s) => ({
        labels: Object.entries(s.labels).map(([name, value]) => ({ name, value })),
        samples: s.samples.map(([timestamp, value]) => ({ timestamp, value: value === "stale" ? MARKER_STAND_IN : value })),
      })),
    }),
  ).finish();
  // A double field is its tag byte 0x09 and 8 bytes.
  for (let i = 0; i + 9 <= bytes.length; i++) {
    if (bytes[i] === 0x09 && standInBytes.every((b, k) => bytes[i + 1 + k] === b)) bytes.set(STALE_NAN_BYTES, i + 1);
  }
  return bytes;
}

/** A remote-write HTTP body: snappy-compressed WriteRequest. */
export function remoteWriteBody(series: SeriesIn[]): Uint8Array {
  return new Uint8Array(compressSync(Buffer.from(encodeWriteRequest(series))));
}

export const REMOTE_WRITE_HEADERS = {
  "Content-Type": "application/x-protobuf",
  "Content-Encoding": "snappy",
  "X-Prometheus-Remote-Write-Version": "0.1.0",
};
