/**
 * OTLP metrics requests built by protobufjs (an encoder independent of Outpost's decoder), with
 * the opentelemetry-proto schema of the messages the benches send: sums of number points.
 */
import protobuf from "protobufjs";

const kv = { fields: { key: { type: "string", id: 1 }, value: { type: "AnyValue", id: 2 } } };
const root = protobuf.Root.fromJSON({
  nested: {
    otlp: {
      nested: {
        ExportMetricsServiceRequest: { fields: { resourceMetrics: { rule: "repeated", type: "ResourceMetrics", id: 1 } } },
        ResourceMetrics: { fields: { resource: { type: "Resource", id: 1 }, scopeMetrics: { rule: "repeated", type: "ScopeMetrics", id: 2 } } },
        Resource: { fields: { attributes: { rule: "repeated", type: "KeyValue", id: 1 } } },
        ScopeMetrics: { fields: { scope: { type: "InstrumentationScope", id: 1 }, metrics: { rule: "repeated", type: "Metric", id: 2 } } },
        InstrumentationScope: { fields: { name: { type: "string", id: 1 }, version: { type: "string", id: 2 } } },
        Metric: { fields: { name: { type: "string", id: 1 }, unit: { type: "string", id: 3 }, gauge: { type: "Gauge", id: 5 }, sum: { type: "Sum", id: 7 } } },
        Gauge: { fields: { dataPoints: { rule: "repeated", type: "NumberDataPoint", id: 1 } } },
        Sum: { fields: { dataPoints: { rule: "repeated", type: "NumberDataPoint", id: 1 }, aggregationTemporality: { type: "int32", id: 2 }, isMonotonic: { type: "bool", id: 3 } } },
        NumberDataPoint: {
          fields: {
            startTimeUnixNano: { type: "fixed64", id: 2 },
            timeUnixNano: { type: "fixed64", id: 3 },
            asDouble: { type: "double", id: 4 },
            asInt: { type: "sfixed64", id: 6 },
            attributes: { rule: "repeated", type: "KeyValue", id: 7 },
          },
        },
        KeyValue: kv,
        AnyValue: { fields: { stringValue: { type: "string", id: 1 }, intValue: { type: "int64", id: 3 }, doubleValue: { type: "double", id: 4 } } },
      },
    },
  },
});
export const RequestType = root.lookupType("otlp.ExportMetricsServiceRequest");

const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
/** A fixed64 as protobufjs takes it: low and high 32-bit words. */
const long = (v: bigint) => ({ low: Number(v & 0xffffffffn) | 0, high: Number(v >> 32n) | 0, unsigned: true });

/**
 * A request of `metrics` cumulative monotonic sums × `pointsPerMetric` series each (one point per
 * series), stamped `ms`, values growing with `round`: what an SDK exports every interval.
 */
export function otlpRequest(o: { metrics: number; pointsPerMetric: number; ms: number; round: number; service?: string }): Uint8Array {
  const ns = BigInt(o.ms) * 1_000_000n;
  const start = ns - 3_600_000_000_000n;
  return RequestType.encode(
    RequestType.create({
      resourceMetrics: [
        {
          resource: { attributes: [str("service.name", o.service ?? "bench"), str("service.instance.id", "i-1"), str("host.name", "h1")] },
          scopeMetrics: [
            {
              scope: { name: "bench", version: "1.0" },
              metrics: Array.from({ length: o.metrics }, (_, m) => ({
                name: `bench.requests.${m}`,
                unit: "{request}",
                sum: {
                  aggregationTemporality: 2,
                  isMonotonic: true,
                  dataPoints: Array.from({ length: o.pointsPerMetric }, (_, p) => ({
                    startTimeUnixNano: long(start),
                    timeUnixNano: long(ns),
                    asDouble: o.round * (p + 1),
                    attributes: [str("route", `/r${p}`), str("method", p % 2 ? "GET" : "POST")],
                  })),
                },
              })),
            },
          ],
        },
      ],
    }),
  ).finish();
}
