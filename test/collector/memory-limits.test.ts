/**
 * --memory-limit and --memory-target on a real collector (this test process is its process, so
 * its resident size is far above the 1 MB set here): above the limit every write interface
 * refuses bodies with 503, Retry-After and an errorMsg naming the option, while reads go on;
 * above the target, garbage is collected as bodies arrive and counted in /metrics; agents'
 * MQTT batches count toward the target but are never refused.
 */
import mqtt from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { type Ack, decodeAck, encodeData } from "../../src/protocol/messages.ts";
import { buildTopic } from "../../src/protocol/topics.ts";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { REMOTE_WRITE_HEADERS, remoteWriteBody } from "../helpers/remote-write.ts";

const MB = 1024 * 1024;
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3_600_000;
const gaugeWrite = (id: string, n: number) =>
  JSON.stringify([{ id, data: Array.from({ length: n }, (_, i) => ({ timestamp: T0 + i * 100, value: i / 7 })) }]);

describe("--memory-limit", () => {
  let col: TestCollector;
  beforeAll(async () => {
    col = await startTestCollector({ "memory-limit": MB, "memory-target": 0 });
  });
  afterAll(() => col.close());

  it("refuses Hawkular, Influx and remote writes with 503 and Retry-After, and still answers reads", async () => {
    const json = { "Content-Type": "application/json" };
    const hawkular = await col.req("/svc/metrics/gauges/raw", { method: "POST", body: gaugeWrite("m.a", 10), headers: json });
    expect(hawkular.status).toBe(503);
    expect(hawkular.headers.get("Retry-After")).toBe("1");
    expect((await body(hawkular)).errorMsg).toMatch(/^The collector's memory \(\d+ MiB\) is above --memory-limit \(1 MiB\); retry in 1 s$/);
    const one = await col.req("/svc/metrics/gauges/m.b/raw", { method: "POST", body: JSON.stringify([{ timestamp: T0, value: 1 }]), headers: json });
    expect(one.status).toBe(503);

    const influx = await col.req("/write?db=x", { method: "POST", tenant: null, headers: { "Svc-Tenant": "inf" }, body: `mem used=5 ${T0}000000` });
    expect(influx.status).toBe(503);
    expect(influx.headers.get("Retry-After")).toBe("1");
    expect((await body(influx)).errorMsg).toMatch(/--memory-limit/);

    const series = [{ labels: { __name__: "up", job: "j" }, samples: [[T0, 1]] as [number, number][] }];
    const remote = await col.req("/prometheus/rw/api/v1/write", { method: "POST", tenant: null, headers: REMOTE_WRITE_HEADERS, body: remoteWriteBody(series) });
    expect(remote.status).toBe(503);
    expect(remote.headers.get("Retry-After")).toBe("1");

    // Nothing was written, and reads are not refused.
    const read = await col.req("/svc/metrics/gauges/m.a/raw?start=0");
    expect(read.status).toBe(204);
    expect((await fetch(`${col.url}/metrics`)).status).toBe(200);
    expect(await (await fetch(`${col.url}/metrics`)).text()).toMatch(/^outpost_collector_memory_refusals_total [1-9]\d*$/m);
  });
});

describe("--memory-target", () => {
  let col: TestCollector;
  beforeAll(async () => {
    col = await startTestCollector({ "memory-target": MB });
  });
  afterAll(() => col.close());

  it("collects garbage while bodies arrive above it, and every write is stored", async () => {
    const before = await (await fetch(`${col.url}/metrics`)).text();
    expect(before).toMatch(/^outpost_collector_memory_collections_total 0$/m);
    // 20 bodies of about 1 MB: over the 16 MB between two collections.
    const text = gaugeWrite("m.big", 20_000);
    expect(text.length).toBeGreaterThan(MB);
    for (let i = 0; i < 20; i++) {
      const res = await col.req("/svc/metrics/gauges/raw", { method: "POST", body: text, headers: { "Content-Type": "application/json" } });
      expect(res.status).toBe(200);
    }
    const after = await (await fetch(`${col.url}/metrics`)).text();
    expect(Number(/^outpost_collector_memory_collections_total (\d+)$/m.exec(after)?.[1])).toBeGreaterThanOrEqual(1);
    // And young collections while they came (one within 100 ms of the first body).
    await Bun.sleep(250);
    const young = await (await fetch(`${col.url}/metrics`)).text();
    expect(Number(/^outpost_collector_memory_young_collections_total (\d+)$/m.exec(young)?.[1])).toBeGreaterThanOrEqual(1);
    const back = (await body(await col.req("/svc/metrics/gauges/m.big/raw?start=0"))) as unknown[];
    expect(back.length).toBe(20_000);
  });
});

describe("MQTT batches and the memory options", () => {
  let col: TestCollector;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    col = await startTestCollector({ "mqtt-port": port, "mqtt-host": "127.0.0.1", "memory-target": MB, "memory-limit": MB } as never);
  });
  afterAll(() => col.close());

  it("count toward --memory-target at their JSON size, and are never refused by --memory-limit", async () => {
    const enc = createEncoder();
    const dec = createDecoder();
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { protocolVersion: 4, reconnectPeriod: 0 });
    const acks: Ack[] = [];
    c.on("message", (_t, p) => acks.push(decodeAck(dec, p)));
    await c.subscribeAsync(buildTopic("svc", { tenant: "t1", feed: "f1", kind: "ack" }), { qos: 1 });
    // 6 batches of 60,000 points: about 20 MB as JSON, over the 16 MB between two collections.
    const N = 60_000;
    for (let seq = 1; seq <= 6; seq++) {
      const writes = [{ type: "gauge", id: `mq.${seq}`, points: Array.from({ length: N }, (_, i) => ({ timestamp: T0 + i * 50, value: i / 3 })) }];
      const payload = encodeData(enc, { session: 9, seq, sentAt: Date.now(), replay: false, chunks: [enc.encode(writes)] });
      await c.publishAsync(buildTopic("svc", { tenant: "t1", feed: "f1", kind: "data" }), Buffer.from(payload), { qos: 1 });
    }
    await waitFor("six acks", () => (acks.reduce((n, a) => n + a.seqs.length, 0) >= 6 ? true : undefined), 30_000);
    expect(acks.every((a) => a.rejected === undefined)).toBe(true);
    await c.endAsync();
    const metrics = await (await fetch(`${col.url}/metrics`)).text();
    expect(Number(/^outpost_collector_memory_collections_total (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(metrics).toMatch(/^outpost_collector_memory_refusals_total 0$/m);
    const back = (await body(await col.req("/svc/metrics/gauges/mq.6/raw?start=0"))) as unknown[];
    expect(back.length).toBe(N);
  });
});
