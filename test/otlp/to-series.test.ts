import { describe, expect, test } from "vitest";
import { decodeMetricsJson } from "../../src/otlp/json-decode.ts";
import { nanosToMs } from "../../src/otlp/metrics-model.ts";
import { prometheusLabel, prometheusName } from "../../src/otlp/naming.ts";
import { DeltaTotals, otlpToSeries } from "../../src/otlp/to-series.ts";

const T = 1_700_000_000_000;
const ns = (ms: number) => `${ms}000000`;
const convert = (metrics: unknown[], deltas = new DeltaTotals(), staleMarker?: number) =>
  otlpToSeries(decodeMetricsJson({ resourceMetrics: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: "svc" } }] }, scopeMetrics: [{ metrics }] }] }), deltas, { now: T, staleMarker });

describe("names by the Prometheus/OpenTelemetry compatibility rules", () => {
  test("metric names with unit and type suffixes", () => {
    expect(prometheusName("http.server.duration", "ms", "other")).toBe("http_server_duration_milliseconds");
    expect(prometheusName("http.requests", "{request}", "counter")).toBe("http_requests_total");
    expect(prometheusName("requests_total", "1", "counter")).toBe("requests_total");
    expect(prometheusName("cpu.utilization", "1", "gauge")).toBe("cpu_utilization_ratio");
    expect(prometheusName("network.io", "By/s", "gauge")).toBe("network_io_bytes_per_second");
    expect(prometheusName("disk.io_bytes", "By", "counter")).toBe("disk_io_bytes_total");
    expect(prometheusName("temperature", "Cel", "gauge")).toBe("temperature_celsius");
    expect(prometheusName("2xx.count", "", "gauge")).toBe("_2xx_count");
    expect(prometheusName("weird__name..x", "", "gauge")).toBe("weird_name_x");
  });

  test("label names", () => {
    expect(prometheusLabel("http.method")).toBe("http_method");
    expect(prometheusLabel("2fa")).toBe("key_2fa");
    expect(prometheusLabel("_private")).toBe("key_private");
    expect(prometheusLabel("__reserved")).toBe("__reserved");
  });

  test("ns to ms exactly, from both halves of a fixed64", () => {
    const n = 1_700_000_000_123_999_999n;
    expect(nanosToMs(Number(n & 0xffffffffn), Number(n >> 32n))).toBe(1_700_000_000_123);
  });
});

describe("conversion", () => {
  test("summary: quantiles, sum and count", () => {
    const c = convert([{ name: "rpc.latency", unit: "s", summary: { dataPoints: [{ timeUnixNano: ns(T), count: "10", sum: 4.5, quantileValues: [{ quantile: 0.5, value: 0.3 }, { quantile: 1, value: 2 }] }] } }]);
    expect(c.samples.map((s) => [s.name, s.labels.quantile, s.value])).toEqual([
      ["rpc_latency_seconds", "0.5", 0.3],
      ["rpc_latency_seconds", "1.0", 2],
      ["rpc_latency_seconds_count", undefined, 10],
      ["rpc_latency_seconds_sum", undefined, 4.5],
    ]);
    expect(c.samples[0]!.labels.job).toBe("svc");
  });

  test("exponential histogram: classic buckets at each bucket's upper bound, cumulative", () => {
    // scale 0: base 2; positive offset 1 → buckets (2,4], (4,8]; negative offset 0 → (-2,-1]; zero bucket.
    const c = convert([
      { name: "size", exponentialHistogram: { aggregationTemporality: 2, dataPoints: [{ timeUnixNano: ns(T), count: "7", sum: 20, scale: 0, zeroCount: "1", positive: { offset: 1, bucketCounts: ["2", "3"] }, negative: { offset: 0, bucketCounts: ["1"] } }] } },
    ]);
    expect(c.samples.filter((s) => s.name === "size_bucket").map((s) => [s.labels.le, s.value])).toEqual([
      ["-1.0", 1],
      ["0.0", 2],
      ["4.0", 4],
      ["8.0", 7],
      ["+Inf", 7],
    ]);
  });

  test("delta sums accumulate; a resent point is skipped; an earlier one too", () => {
    const deltas = new DeltaTotals();
    const sum = (ms: number, v: number) => [{ name: "jobs", sum: { aggregationTemporality: 1, isMonotonic: true, dataPoints: [{ timeUnixNano: ns(ms), asInt: String(v) }] } }];
    expect(convert(sum(T, 2), deltas).samples[0]).toMatchObject({ name: "jobs_total", value: 2, timestamp: T });
    expect(convert(sum(T + 1000, 3), deltas).samples[0]!.value).toBe(5);
    expect(convert(sum(T + 1000, 3), deltas).samples).toEqual([]);
    expect(convert(sum(T + 500, 1), deltas).samples).toEqual([]);
    expect(convert(sum(T + 2000, 1), deltas).samples[0]!.value).toBe(6);
  });

  test("non-monotonic sums are gauges; NaN refused; a point without a recorded value ends its series", () => {
    const c = convert(
      [
        { name: "queue", sum: { aggregationTemporality: 2, isMonotonic: false, dataPoints: [{ timeUnixNano: ns(T), asDouble: -3 }] } },
        { name: "bad", gauge: { dataPoints: [{ timeUnixNano: ns(T), asDouble: "NaN" }] } },
        { name: "gone", gauge: { dataPoints: [{ timeUnixNano: ns(T), flags: 1 }] } },
      ],
      new DeltaTotals(),
      Number.NaN,
    );
    expect(c.samples.map((s) => [s.name, s.value])).toEqual([
      ["queue", -3],
      ["gone", Number.NaN],
    ]);
    expect(c.rejected).toBe(1);
    expect(c.reasons[0]).toMatch(/bad: NaN and infinite values are not stored/);
  });

  test("attributes that become the same label are joined; other resource attributes go to target_info", () => {
    const req = decodeMetricsJson({
      resourceMetrics: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "a" } }, { key: "host.name", value: { stringValue: "h1" } }] },
          scopeMetrics: [{ metrics: [{ name: "g", gauge: { dataPoints: [{ timeUnixNano: ns(T), asDouble: 1, attributes: [{ key: "a.b", value: { stringValue: "x" } }, { key: "a_b", value: { intValue: "2" } }] }] } }] }],
        },
      ],
    });
    const c = otlpToSeries(req, new DeltaTotals(), { now: T });
    expect(c.samples[0]!.labels).toEqual({ a_b: "x;2", job: "a" });
    expect(c.samples[1]).toEqual({ name: "target_info", labels: { host_name: "h1", job: "a" }, value: 1, timestamp: T });
  });
});
