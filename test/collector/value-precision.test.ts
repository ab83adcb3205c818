/**
 * --value-precision end to end: a real collector rounds gauge and counter values written by
 * every way in (Hawkular JSON, MQTT from agents, Influx line protocol, remote write), and keeps
 * them bit for bit without the option. Values are read back over HTTP.
 */
import mqtt from "mqtt";
import { afterEach, describe, expect, it } from "vitest";
import { TYPE_PATH, type MetricWrite } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { decodeAck, encodeChunk, encodeData } from "../../src/protocol/messages.ts";
import { buildTopic } from "../../src/protocol/topics.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { REMOTE_WRITE_HEADERS, remoteWriteBody } from "../helpers/remote-write.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const T0 = Math.floor(Date.now() / 1000) * 1000 - 600_000;
/** Values with long fractions, the extremes and the values the option must leave alone. */
const VALUES = [123.456, 0.0012345, 0.1 + 0.2, Math.PI, -1 / 3, 123_456_789.123, 5e-324, Number.MAX_VALUE, -0, 0];
/** Counter values are integers in the Hawkular API. */
const COUNTS = [123_456, 987_654_321, 7, 0];

async function start(values: Record<string, unknown>): Promise<{ col: TestCollector; port: number }> {
  const port = await freePort();
  const col = await startTestCollector({ "mqtt-port": port, "mqtt-host": "127.0.0.1", ...values } as never);
  cleanups.push(() => col.close());
  return { col, port };
}

async function raw(col: TestCollector, tenant: string, type: MetricWrite["type"], id: string): Promise<(number | string)[]> {
  const res = await col.req(`/svc/metrics/${TYPE_PATH[type]}/${encodeURIComponent(id)}/raw?start=${T0 - 1}&end=${T0 + 3_600_000}&order=ASC`, { tenant });
  expect(res.status, id).toBe(200);
  return ((await body(res)) as { value: number | string }[]).map((p) => p.value);
}

/** Writes `values` by the four ways in, under tenant `t`; returns how to read each back. */
async function writeEveryWay(col: TestCollector, port: number, values: number[]): Promise<Record<string, () => Promise<(number | string)[]>>> {
  const points = values.map((value, i) => ({ timestamp: T0 + i * 1000, value }));
  // Hawkular JSON: a gauge, a counter, and a string and availability that must stay as sent.
  expect((await col.req("/svc/metrics/gauges/raw", { method: "POST", tenant: "t", json: [{ id: "json.g", data: points }] })).status).toBe(200);
  expect((await col.req("/svc/metrics/counters/raw", { method: "POST", tenant: "t", json: [{ id: "json.c", data: COUNTS.map((value, i) => ({ timestamp: T0 + i * 1000, value })) }] })).status).toBe(200);
  expect((await col.req("/svc/metrics/strings/json.s/raw", { method: "POST", tenant: "t", json: [{ timestamp: T0, value: "123.456" }] })).status).toBe(200);
  expect((await col.req("/svc/metrics/availability/json.a/raw", { method: "POST", tenant: "t", json: [{ timestamp: T0, value: "up" }] })).status).toBe(200);
  // MQTT, as an agent sends a batch.
  const enc = createEncoder();
  const dec = createDecoder();
  const agent = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { protocolVersion: 4, reconnectPeriod: 0 });
  const acks: unknown[] = [];
  agent.on("message", (_t, p) => acks.push(decodeAck(dec, p)));
  await agent.subscribeAsync(buildTopic("svc", { tenant: "t", feed: "f", kind: "ack" }), { qos: 1 });
  const writes: MetricWrite[] = [{ type: "gauge", id: "mqtt.g", points }];
  const data = encodeData(enc, { session: 1, seq: 1, sentAt: Date.now(), replay: false, chunks: [encodeChunk(enc, writes)] });
  await agent.publishAsync(buildTopic("svc", { tenant: "t", feed: "f", kind: "data" }), Buffer.from(data), { qos: 1 });
  await waitFor("ack", () => (acks.length > 0 ? true : undefined));
  await agent.endAsync();
  // Influx line protocol (a finite float field per line; the string field stays as sent).
  const lines = points.map((p) => `influx,host=h v=${p.value === 0 ? "0" : String(p.value)},s="1.23456" ${p.timestamp}`).join("\n");
  expect((await col.req("/write?precision=ms", { method: "POST", tenant: "t", body: lines })).status).toBe(204);
  // Remote write.
  const rw = await col.req("/api/v1/write", { method: "POST", tenant: "t", headers: REMOTE_WRITE_HEADERS, body: remoteWriteBody([{ labels: { __name__: "rw" }, samples: points.map((p) => [p.timestamp, p.value] as [number, number]) }]) });
  expect(rw.status).toBe(204);
  return {
    json: () => raw(col, "t", "gauge", "json.g"),
    counter: () => raw(col, "t", "counter", "json.c"),
    string: () => raw(col, "t", "string", "json.s"),
    availability: () => raw(col, "t", "availability", "json.a"),
    mqtt: () => raw(col, "t", "gauge", "mqtt.g"),
    influx: () => raw(col, "t", "gauge", 'influx_v{host="h"}'),
    influxString: () => raw(col, "t", "string", 'influx_s{host="h"}'),
    remoteWrite: () => raw(col, "t", "gauge", "rw"),
  };
}

const bits = (v: unknown) => (typeof v === "number" ? [v, Object.is(v, -0)] : v);

describe("--value-precision", () => {
  it("3 digits: every way in stores 123.456 as 123 and 0.0012345 as 0.00123; strings, availability and timestamps stay", async () => {
    const { col, port } = await start({ "value-precision": 3 });
    const read = await writeEveryWay(col, port, VALUES);
    const rounded = [123, 0.00123, 0.3, 3.14, -0.333, 123_000_000, 4.94e-324, Number.MAX_VALUE, 0, 0];
    for (const way of ["json", "mqtt", "influx", "remoteWrite"]) {
      const got = await read[way]!();
      // JSON has no −0: it is read back as 0 with the option and without (the next test).
      expect(got, way).toEqual(rounded);
    }
    expect(await read.counter!()).toEqual([123_000, 988_000_000, 7, 0]);
    expect(await read.string!()).toEqual(["123.456"]);
    expect(await read.availability!()).toEqual(["up"]);
    expect(await read.influxString!()).toEqual(VALUES.map(() => "1.23456"));
    const ts = (await body(await col.req(`/svc/metrics/gauges/json.g/raw?start=${T0 - 1}&end=${T0 + 3_600_000}&order=ASC`, { tenant: "t" }))).map((p: { timestamp: number }) => p.timestamp);
    expect(ts).toEqual(VALUES.map((_v, i) => T0 + i * 1000));
  });

  it("without the option, values come back bit for bit by every way in", async () => {
    const { col, port } = await start({});
    const read = await writeEveryWay(col, port, VALUES);
    const sent = VALUES.map((v) => (Object.is(v, -0) ? 0 : v));
    for (const way of ["json", "mqtt", "influx", "remoteWrite"]) expect((await read[way]!()).map(bits), way).toEqual(sent.map(bits));
    expect(await read.counter!()).toEqual(COUNTS);
  });
});
