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
  samples: [timestamp: number, value: number][];
}

/** The protobuf bytes of a WriteRequest. */
export function encodeWriteRequest(series: SeriesIn[]): Uint8Array {
  return WriteRequestType.encode(
    WriteRequestType.create({
      timeseries: series.map((s) => ({
        labels: Object.entries(s.labels).map(([name, value]) => ({ name, value })),
        samples: s.samples.map(([timestamp, value]) => ({ timestamp, value })),
      })),
    }),
  ).finish();
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
