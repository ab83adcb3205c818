/**
 * The OpenTelemetry JavaScript SDK's own OTLP exporters (protobuf: exporter-metrics-otlp-proto;
 * JSON: exporter-metrics-otlp-http) sending counters, gauges, up-down counters and histograms
 * to the agent's local API and to the collector, read back through the collector's Prometheus
 * API under the names the compatibility rules give them.
 */
import type { Meter } from "@opentelemetry/api";
import { AggregationTemporalityPreference, OTLPMetricExporter as JsonExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { body } from "../../helpers/collector.ts";
import { type InputsSystem, startInputsSystem } from "./system.ts";

let sys: InputsSystem;

beforeAll(async () => {
  sys = await startInputsSystem({});
}, 60_000);
afterAll(async () => {
  await sys?.close();
});

function sdk(exporter: ProtoExporter | JsonExporter, service: string) {
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ "service.name": service, "service.namespace": "shop", "service.instance.id": `${service}-1`, "deployment.environment": "test" }),
    readers: [reader],
  });
  return { provider, meter: provider.getMeter("checkout-lib", "1.2.3") };
}

/** Records the same instruments on any meter; returns what the counter totals. */
function record(meter: Meter): void {
  const requests = meter.createCounter("http.requests", { unit: "{request}" });
  requests.add(3, { route: "/cart" });
  requests.add(4, { route: "/cart" });
  requests.add(1, { route: "/pay", "http.method": "POST" });
  meter.createGauge("queue.fill", { unit: "1" }).record(0.25);
  meter.createUpDownCounter("sessions.active").add(5);
  const latency = meter.createHistogram("http.server.duration", { unit: "ms", advice: { explicitBucketBoundaries: [10, 100, 1000] } });
  for (const v of [5, 50, 50, 500, 5000]) latency.record(v);
}

describe("OTLP from the OpenTelemetry SDK", () => {
  test("protobuf to the agent: counter, gauge, up-down counter and histogram by the compatibility rules", async () => {
    const { provider, meter } = sdk(new ProtoExporter({ url: `${sys.agent.url}/v1/metrics` }), "cart");
    record(meter);
    await provider.forceFlush();
    const job = "shop/cart";
    const cart = await sys.until(`http_requests_total{job="${job}",route="/cart"}`);
    expect(cart[0]!.metric).toEqual({ __name__: "http_requests_total", job, instance: "cart-1", feed: sys.feed, route: "/cart", otel_scope_name: "checkout-lib", otel_scope_version: "1.2.3" });
    expect(cart[0]!.value[1]).toBe("7");
    expect((await sys.query(`http_requests_total{job="${job}",route="/pay"}`))[0]!.metric.http_method).toBe("POST");
    expect((await sys.query(`queue_fill_ratio{job="${job}"}`))[0]!.value[1]).toBe("0.25");
    expect((await sys.query(`sessions_active{job="${job}"}`))[0]!.value[1]).toBe("5");
    const buckets = await sys.query(`http_server_duration_milliseconds_bucket{job="${job}"}`);
    expect(Object.fromEntries(buckets.map((b) => [b.metric.le, b.value[1]]))).toEqual({ "10.0": "1", "100.0": "3", "1000.0": "4", "+Inf": "5" });
    expect((await sys.query(`http_server_duration_milliseconds_count{job="${job}"}`))[0]!.value[1]).toBe("5");
    expect((await sys.query(`http_server_duration_milliseconds_sum{job="${job}"}`))[0]!.value[1]).toBe("5605");
    expect((await sys.query(`histogram_quantile(0.5, http_server_duration_milliseconds_bucket{job="${job}"})`))[0]!.value[1]).toBe("77.5");
    // The resource's other attributes, as Prometheus' target_info.
    expect((await sys.query(`target_info{job="${job}"}`))[0]!.metric).toMatchObject({ instance: "cart-1", deployment_environment: "test", feed: sys.feed });
    await provider.shutdown();
  }, 30_000);

  test("JSON to the agent, with delta temporality accumulated into counters", async () => {
    const { provider, meter } = sdk(new JsonExporter({ url: `${sys.agent.url}/v1/metrics`, temporalityPreference: AggregationTemporalityPreference.DELTA }), "pay");
    const c = meter.createCounter("payments", { unit: "{payment}" });
    c.add(2);
    await provider.forceFlush();
    await sys.until(`payments_total{job="shop/pay"}`);
    c.add(5);
    await provider.forceFlush();
    await Bun.sleep(1);
    const r = await sys.until(`payments_total{job="shop/pay"} == 7`);
    expect(r[0]!.value[1]).toBe("7");
    const h = meter.createHistogram("work.time", { unit: "s", advice: { explicitBucketBoundaries: [1] } });
    h.record(0.5);
    await provider.forceFlush();
    h.record(2);
    await provider.forceFlush();
    expect((await sys.until(`work_time_seconds_count{job="shop/pay"} == 2`))[0]!.value[1]).toBe("2");
    expect((await sys.query(`work_time_seconds_bucket{job="shop/pay",le="1.0"}`))[0]!.value[1]).toBe("1");
    await provider.shutdown();
  }, 30_000);

  test("protobuf straight to the collector, under its tenant", async () => {
    const { provider, meter } = sdk(new ProtoExporter({ url: `${sys.col.url}/otlp/${sys.tenant}/v1/metrics` }), "direct");
    record(meter);
    await provider.forceFlush();
    const r = await sys.until(`http_requests_total{job="shop/direct",route="/cart"}`);
    // No agent on the way: no feed label.
    expect(r[0]!.metric).toEqual({ __name__: "http_requests_total", job: "shop/direct", instance: "direct-1", route: "/cart", otel_scope_name: "checkout-lib", otel_scope_version: "1.2.3" });
    expect(r[0]!.value[1]).toBe("7");
    await provider.shutdown();
  }, 30_000);

  test("partial success for refused points; bad bodies answered 400 with a Status; the wrong media type 415", async () => {
    const now = `${Date.now()}000000`;
    const req = {
      resourceMetrics: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "edge" } }] },
          scopeMetrics: [
            {
              scope: { name: "s" },
              metrics: [
                { name: "ok.gauge", gauge: { dataPoints: [{ timeUnixNano: now, asDouble: 1 }] } },
                { name: "odd.sum", sum: { aggregationTemporality: 0, dataPoints: [{ timeUnixNano: now, asInt: "3" }] } },
                { name: "exp.delta", exponentialHistogram: { aggregationTemporality: 1, dataPoints: [{ timeUnixNano: now, count: "1", positive: { offset: 0, bucketCounts: ["1"] } }] } },
              ],
            },
          ],
        },
      ],
    };
    for (const url of [`${sys.agent.url}/v1/metrics`, `${sys.col.url}/otlp/${sys.tenant}/v1/metrics`]) {
      const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(req) });
      expect(res.status).toBe(200);
      const b = await body(res);
      expect(b.partialSuccess.rejectedDataPoints).toBe("2");
      expect(b.partialSuccess.errorMessage).toMatch(/aggregation temporality unspecified.*exponential histograms are taken with cumulative temporality only/);
      const bad = await fetch(url, { method: "POST", headers: { "Content-Type": "application/x-protobuf" }, body: new Uint8Array([0x0a, 0x05, 0x01]) });
      expect(bad.status).toBe(400);
      expect(bad.headers.get("Content-Type")).toBe("application/x-protobuf");
      const badJson = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"resourceMetrics": 5}' });
      expect(badJson.status).toBe(400);
      expect((await body(badJson)).errorMsg).toMatch(/resourceMetrics must be an array/);
      expect((await fetch(url, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "x" })).status).toBe(415);
    }
    expect((await sys.until('ok_gauge{job="edge"}', 2)).length).toBe(2);
  }, 30_000);
});
