import mqtt, { type MqttClient } from "mqtt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MetricWrite, TYPE_PATH } from "../../src/metrics/model.ts";
import { createDecoder, createEncoder } from "../../src/protocol/cbor.ts";
import { type Ack, decodeAck, encodeChunk, encodeData, encodeStatus } from "../../src/protocol/messages.ts";
import { agentClientId, buildTopic } from "../../src/protocol/topics.ts";
import { readAuthFile, writeAuthFile } from "../../collector/auth/auth-file.ts";
import { basic, writeTestAuthFile } from "../helpers/auth.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { freePort, waitFor } from "../helpers/ports.ts";

const enc = createEncoder();
const dec = createDecoder();
const topic = (tenant: string, feed: string, kind: "data" | "ack" | "status") => buildTopic("svc", { tenant, feed, kind });

let col: TestCollector;
let port: number;

async function startCol(values: Record<string, unknown> = {}, authorization?: string) {
  port = await freePort();
  col = await startTestCollector({ "mqtt-port": port, "mqtt-host": "127.0.0.1", ...values } as never, undefined, authorization);
}

beforeAll(async () => {
  await startCol({ "self-metrics-interval": 100 });
});
afterAll(async () => {
  await col.close();
});

/** An MQTT client speaking as an agent, collecting the acks it receives. */
async function agentClient(tenant: string, feed: string, opts: mqtt.IClientOptions = {}) {
  const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { protocolVersion: 4, reconnectPeriod: 0, ...opts });
  const acks: Ack[] = [];
  c.on("message", (_t, p) => acks.push(decodeAck(dec, p)));
  const granted = await c.subscribeAsync(topic(tenant, feed, "ack"), { qos: 1 });
  return { c, acks, granted };
}

const batch = (session: number, seq: number, writes: unknown[]) =>
  encodeData(enc, { session, seq, sentAt: Date.now(), replay: false, chunks: [enc.encode(writes)] });

/** The values of a series, oldest first, read back over HTTP. */
async function series(tenant: string, type: MetricWrite["type"], id: string): Promise<(number | string)[]> {
  const res = await col.req(`/svc/metrics/${TYPE_PATH[type]}/${encodeURIComponent(id)}/raw?start=0&end=${Date.now() + 3_600_000}&order=ASC`, { tenant });
  if (res.status === 204) return [];
  expect(res.status).toBe(200);
  return ((await res.json()) as { value: number | string }[]).map((p) => p.value);
}

async function collectorMetric(name: string): Promise<number> {
  const text = await (await fetch(`${col.url}/metrics`)).text();
  return Number(text.split("\n").find((l) => l.startsWith(`${name} `))?.split(" ")[1]);
}

const end = (c: MqttClient) => c.endAsync();

describe("MQTT ingest (embedded broker)", () => {
  it("stores a batch and acks it after the commit", async () => {
    const a = await agentClient("t1", "f1");
    const now = Date.now();
    const writes: MetricWrite[] = [{ type: "gauge", id: "g", points: [{ timestamp: now, value: 1 }, { timestamp: now + 1, value: 2 }] }];
    await a.c.publishAsync(topic("t1", "f1", "data"), Buffer.from(encodeData(enc, { session: 5, seq: 1, sentAt: now, replay: false, chunks: [encodeChunk(enc, writes)] })), { qos: 1 });
    await waitFor("ack", () => (a.acks.length > 0 ? true : undefined));
    expect(a.acks).toEqual([{ session: 5, seqs: [1], rejected: undefined }]);
    expect(await series("t1", "gauge", "g")).toEqual([1, 2]);
    // The same batch again (a resend) is stored once and acked again.
    await a.c.publishAsync(topic("t1", "f1", "data"), Buffer.from(encodeData(enc, { session: 5, seq: 1, sentAt: now, replay: false, chunks: [encodeChunk(enc, writes)] })), { qos: 1 });
    await waitFor("second ack", () => (a.acks.length > 1 ? true : undefined));
    expect(await series("t1", "gauge", "g")).toEqual([1, 2]);
    await end(a.c);
  });

  it("rejects malformed messages, counts them, and keeps the stream going", async () => {
    const a = await agentClient("t1", "f2");
    const rejectedBefore = await collectorMetric("outpost_collector_messages_rejected_total");
    const t = topic("t1", "f2", "data");
    await a.c.publishAsync(t, Buffer.from([0xff, 0x00, 0x13]), { qos: 1 });
    await a.c.publishAsync(t, Buffer.from(batch(1, 1, [{ type: "gauge", id: "g", points: [{ timestamp: 1, value: "x" }] }])), { qos: 1 });
    await a.c.publishAsync(topic("t1", "f2", "status"), Buffer.from("not cbor at all"), { qos: 1 });
    await a.c.publishAsync(t, Buffer.from(batch(1, 2, [{ type: "gauge", id: "ok", points: [{ timestamp: Date.now(), value: 7 }] }])), { qos: 1 });
    await waitFor("acks", () => (a.acks.length >= 2 ? true : undefined));
    // The identifiable invalid batch is refused by ack so the agent drops it; the valid one is stored.
    expect(a.acks.find((x) => x.rejected)?.rejected?.[0]).toMatchObject({ seq: 1, reason: expect.stringMatching(/chunk 0/) });
    expect(a.acks.find((x) => x.seqs.length)?.seqs).toEqual([2]);
    expect(await series("t1", "gauge", "ok")).toEqual([7]);
    expect(await collectorMetric("outpost_collector_messages_rejected_total")).toBe(rejectedBefore + 3);
    await end(a.c);
  });

  it("records presence as availability: online, then offline by last will", async () => {
    const will = { topic: topic("t1", "edge", "status"), payload: Buffer.from(encodeStatus(enc, { state: "offline", session: 3, at: Date.now() })), qos: 1 as const, retain: true };
    const a = await agentClient("t1", "edge", { will });
    await a.c.publishAsync(topic("t1", "edge", "status"), Buffer.from(encodeStatus(enc, { state: "online", session: 3, at: Date.now() })), { qos: 1, retain: true });
    await waitFor("up", async () => ((await series("t1", "availability", "edge:outpost_agent_up")).includes("up") ? true : undefined));
    a.c.stream.destroy(); // dies without DISCONNECT: the broker publishes the will
    await waitFor("down", async () => ((await series("t1", "availability", "edge:outpost_agent_up")).at(-1) === "down" ? true : undefined));
    expect(await series("t1", "availability", "edge:outpost_agent_up")).toEqual(["up", "down"]);
    a.c.end(true);
  });

  it("lets agents publish only agent topics, so none can forge an ack", async () => {
    const a = await agentClient("t1", "f4");
    const closed = new Promise<void>((r) => a.c.once("close", () => r()));
    a.c.publish(topic("t1", "f9", "ack"), Buffer.from("forged"), { qos: 1 });
    await closed;
    a.c.end(true);
  });

  it("serves its own metrics at /metrics, outside /svc", async () => {
    const res = await fetch(`${col.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const n of ["outpost_collector_messages_received_total", "outpost_collector_points_stored_total", "outpost_collector_ingest_points_per_second", "outpost_collector_messages_rejected_total", "outpost_collector_agents_connected"]) {
      expect(text).toContain(`# TYPE ${n} `);
    }
    expect(await collectorMetric("outpost_collector_points_stored_total")).toBeGreaterThan(0);
  });

  it("stores its own metrics in the self-metrics tenant", async () => {
    const r = await waitFor("collector self-metrics", async () => {
      const v = await series("_outpost", "counter", "collector:outpost_collector_points_stored_total");
      return v.some((x) => Number(x) > 0) ? v : undefined;
    });
    expect(r.length).toBeGreaterThan(0);
  });
});

describe("agent credentials on the embedded broker (--auth-file)", () => {
  const id = (tenant: string, feed: string) => ({ clientId: agentClientId(tenant, feed) });
  let authPath = "";
  beforeAll(async () => {
    await col.close();
    const auth = await writeTestAuthFile([
      { name: "alice", password: "s3cret:x", agent: { tenant: "t1", feed: "a1" } },
      { name: "bob", password: "pw", agent: { tenant: "t2", feed: "b1" } },
      { name: "carol", password: "pw3", tenants: ["t1"] },
      { name: "reader", password: "pw4", admin: true },
    ]);
    authPath = auth.path;
    await startCol({ "auth-file": auth.path }, basic("reader", "pw4"));
  });

  it("refuses a wrong password, no credentials, and an HTTP user's credential", async () => {
    const url = `mqtt://127.0.0.1:${port}`;
    await expect(mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, username: "alice", password: "nope", ...id("t1", "a1") })).rejects.toThrow(/Bad username or password/i);
    await expect(mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, ...id("t1", "a1") })).rejects.toThrow(/Not authorized/i);
    await expect(mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, username: "carol", password: "pw3", ...id("t1", "a1") })).rejects.toThrow(/Not authorized/i);
  });

  it("confines an agent to its own tenant's and feed's topics", async () => {
    const alice = await agentClient("t1", "a1", { username: "alice", password: "s3cret:x", ...id("t1", "a1") });
    expect(alice.granted[0]?.qos).toBe(1);
    // mqtt.js turns a refused subscription (granted 128) into an error.
    await expect(alice.c.subscribeAsync(topic("t2", "b1", "ack"), { qos: 1 })).rejects.toThrow(/Subscribe error/);
    await expect(alice.c.subscribeAsync(topic("t1", "a2", "ack"), { qos: 1 })).rejects.toThrow(/Subscribe error/);
    await expect(alice.c.subscribeAsync("svc/t1/+/ack", { qos: 1 })).rejects.toThrow(/Subscribe error/);
    await expect(alice.c.subscribeAsync("svc/+/+/ack", { qos: 1 })).rejects.toThrow(/Subscribe error/);

    await alice.c.publishAsync(topic("t1", "a1", "data"), Buffer.from(batch(1, 1, [{ type: "gauge", id: "mine", points: [{ timestamp: Date.now(), value: 1 }] }])), { qos: 1 });
    await waitFor("ack", () => (alice.acks.length > 0 ? true : undefined));
    expect(await series("t1", "gauge", "mine")).toEqual([1]);

    // Another feed of the same tenant: refused (the connection is dropped).
    let closed = new Promise<void>((r) => alice.c.once("close", () => r()));
    alice.c.publish(topic("t1", "a2", "data"), Buffer.from(batch(1, 1, [{ type: "gauge", id: "sibling", points: [{ timestamp: Date.now(), value: 1 }] }])), { qos: 1 });
    await closed;
    alice.c.end(true);
    // Another tenant: refused.
    const again = await agentClient("t1", "a1", { username: "alice", password: "s3cret:x", ...id("t1", "a1") });
    closed = new Promise<void>((r) => again.c.once("close", () => r()));
    again.c.publish(topic("t2", "b1", "data"), Buffer.from(batch(1, 1, [{ type: "gauge", id: "theirs", points: [{ timestamp: Date.now(), value: 1 }] }])), { qos: 1 });
    await closed;
    again.c.end(true);
    // The refused publishes left nothing; bob's own batch in t2 is stored.
    const bob = await agentClient("t2", "b1", { username: "bob", password: "pw", ...id("t2", "b1") });
    await bob.c.publishAsync(topic("t2", "b1", "data"), Buffer.from(batch(1, 1, [{ type: "gauge", id: "bobs", points: [{ timestamp: Date.now(), value: 2 }] }])), { qos: 1 });
    await waitFor("bob's ack", () => (bob.acks.length > 0 ? true : undefined));
    expect(await series("t2", "gauge", "theirs")).toEqual([]);
    expect(await series("t1", "gauge", "sibling")).toEqual([]);
    expect(await series("t2", "gauge", "bobs")).toEqual([2]);
    await end(bob.c);
  });

  it("refuses a client id that is not the credential's own, so nobody can take over another agent's session", async () => {
    const bob = await agentClient("t2", "b1", { username: "bob", password: "pw", ...id("t2", "b1") });
    let bobClosed = false;
    bob.c.on("close", () => (bobClosed = true));
    // Alice, with her valid credential, presents bob's client id: CONNACK 2, and bob stays.
    await expect(mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { protocolVersion: 4, reconnectPeriod: 0, username: "alice", password: "s3cret:x", ...id("t2", "b1") })).rejects.toThrow(/Identifier rejected/i);
    await expect(mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { protocolVersion: 4, reconnectPeriod: 0, username: "alice", password: "s3cret:x", clientId: "anything" })).rejects.toThrow(/Identifier rejected/i);
    await Bun.sleep(200);
    expect(bobClosed).toBe(false);
    await bob.c.publishAsync(topic("t2", "b1", "data"), Buffer.from(batch(2, 1, [{ type: "gauge", id: "bob-still", points: [{ timestamp: Date.now(), value: 3 }] }])), { qos: 1 });
    await waitFor("bob's ack", () => (bob.acks.length > 0 ? true : undefined));
    await end(bob.c);
  });

  it("disconnects an agent whose credential was removed when the file is re-read (SIGHUP)", async () => {
    const bob = await agentClient("t2", "b1", { username: "bob", password: "pw", ...id("t2", "b1") });
    const alice = await agentClient("t1", "a1", { username: "alice", password: "s3cret:x", ...id("t1", "a1") });
    const closed = new Promise<void>((r) => bob.c.once("close", () => r()));
    const file = readAuthFile(authPath);
    delete file.users.bob;
    writeAuthFile(authPath, file);
    await col.reload();
    await closed;
    await expect(mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { protocolVersion: 4, reconnectPeriod: 0, username: "bob", password: "pw", ...id("t2", "b1") })).rejects.toThrow(/Bad username or password/i);
    // Alice's credential did not change: she stays.
    expect(alice.c.connected).toBe(true);
    bob.c.end(true);
    await end(alice.c);
  });
});
