import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { MqttConnection } from "../../agent/forward/mqtt/connection.ts";
import { type BrokerAddress, parseBrokerUrl } from "../../src/protocol/broker-url.ts";
import {
  encodeConnect,
  encodePublish,
  encodePublishParts,
  encodeSubscribe,
  MqttProtocolError,
  PacketReader,
} from "../../agent/forward/mqtt/packets.ts";
import { MqttLink } from "../../agent/forward/mqtt-link.ts";
import { createLogger } from "../../src/log/logger.ts";
import { writeTestAuthFile } from "../helpers/auth.ts";
import { startTestCollector } from "../helpers/collector.ts";
import { type PrivateMosquitto, startMosquitto } from "../helpers/mosquitto.ts";
import { freePort, waitFor } from "../helpers/ports.ts";

const bytes = (s: string) => [...new TextEncoder().encode(s)];

describe("MQTT 3.1.1 packets", () => {
  test("CONNECT as the standard lays it out (§3.1)", () => {
    expect([...encodeConnect({ clientId: "a", keepaliveSeconds: 30, clean: true })]).toEqual([
      0x10, 13, 0, 4, ...bytes("MQTT"), 4, 0x02, 0, 30, 0, 1, ...bytes("a"),
    ]);
    const full = encodeConnect({
      clientId: "c",
      keepaliveSeconds: 60,
      clean: true,
      username: "u",
      password: "p",
      will: { topic: "w", payload: new Uint8Array([9]), qos: 1, retain: true },
    });
    // clean 0x02 | will 0x04 | will QoS 1 0x08 | will retain 0x20 | password 0x40 | user name 0x80
    expect(full[9]).toBe(0xee);
    expect([...full.subarray(12)]).toEqual([0, 1, ...bytes("c"), 0, 1, ...bytes("w"), 0, 1, 9, 0, 1, ...bytes("u"), 0, 1, ...bytes("p")]);
  });

  test("PUBLISH and SUBSCRIBE headers; remaining length over 127 takes two bytes", () => {
    const p = encodePublish({ topic: "t", payload: new Uint8Array(200), qos: 1, retain: true, id: 258 });
    // type 3, QoS 1, retain; length 3 + 2 + 200 = 205 = 0xCD 0x01
    expect([...p.subarray(0, 8)]).toEqual([0x33, 0xcd, 0x01, 0, 1, ...bytes("t"), 1, 2]);
    expect(encodePublish({ topic: "t", payload: new Uint8Array(1), qos: 0, retain: false })[0]).toBe(0x30);
    expect([...encodeSubscribe(7, ["a/b"], 1)]).toEqual([0x82, 8, 0, 7, 0, 3, ...bytes("a/b"), 1]);
  });

  test("a PUBLISH in two parts (head, then the payload as it is) is the packet encodePublish makes", () => {
    for (const size of [0, 1, 120, 121, 16_380, 16_381, 2_097_146, 2_097_147]) {
      for (const qos of [0, 1] as const) {
        const p = { topic: "svc/t/f/data", payload: new Uint8Array(size).map((_, i) => i % 253), qos, retain: qos === 0, id: 513 };
        const [head, payload] = encodePublishParts(p);
        expect(payload).toBe(p.payload);
        expect(Buffer.concat([head, payload]).equals(Buffer.from(encodePublish(p)))).toBe(true);
      }
    }
  });

  test("the reader reassembles packets split anywhere, and several in one chunk", () => {
    const connack = [0x20, 2, 0, 0];
    const publish = [0x32, 9, 0, 3, ...bytes("a/b"), 0, 5, 0xaa, 0xbb];
    const suback = [0x90, 3, 0, 7, 0x80];
    const stream = [...connack, ...publish, ...suback, 0xd0, 0];
    const r = new PacketReader();
    const out = stream.flatMap((b) => r.push(new Uint8Array([b])));
    expect(out).toEqual([
      { type: "connack", sessionPresent: false, returnCode: 0 },
      { type: "publish", topic: "a/b", payload: new Uint8Array([0xaa, 0xbb]), qos: 1, retain: false, id: 5 },
      { type: "suback", id: 7, granted: [0x80] },
      { type: "pingresp" },
    ]);
    expect(new PacketReader().push(new Uint8Array(stream))).toEqual(out);
  });

  test("a remaining length longer than four bytes is a protocol error", () => {
    expect(() => new PacketReader().push(new Uint8Array([0x30, 0xff, 0xff, 0xff, 0xff, 0x01]))).toThrow(MqttProtocolError);
  });

  test("broker URLs", () => {
    expect(parseBrokerUrl("mqtt://10.0.0.1")).toEqual({ host: "10.0.0.1", port: 1883, tls: false });
    expect(parseBrokerUrl("mqtts://broker.example:9000")).toEqual({ host: "broker.example", port: 9000, tls: true });
    expect(parseBrokerUrl("mqtts://[::1]")).toEqual({ host: "::1", port: 8883, tls: true });
    expect(() => parseBrokerUrl("ws://x")).toThrow(/scheme/);
    expect(() => parseBrokerUrl("nonsense")).toThrow(/broker URL/);
  });
});

describe("MQTT connection against Mosquitto (a private one on an ephemeral port)", () => {
  let mosquitto: PrivateMosquitto;
  let address: BrokerAddress;
  const topic = `outpost-test/${crypto.randomUUID()}`;
  beforeAll(async () => {
    mosquitto = await startMosquitto();
    address = parseBrokerUrl(mosquitto.url);
  });
  afterAll(() => mosquitto.stop());

  test("subscribes, publishes at QoS 1 and receives its own messages, large ones included", async () => {
    const got: { topic: string; payload: Uint8Array }[] = [];
    let closed = "";
    const c = await MqttConnection.open(
      address,
      { clientId: `t-${crypto.randomUUID()}`, keepaliveSeconds: 30, clean: true },
      { message: (t, p) => got.push({ topic: t, payload: new Uint8Array(p) }), closed: (r) => (closed = r) },
      5000,
    );
    await c.subscribe([topic]);
    const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
    await c.publish(topic, new Uint8Array([1, 2, 3]), 1, false);
    await c.publish(topic, big, 1, false);
    await waitFor("both messages", () => (got.length >= 2 ? true : undefined));
    expect(got[0]).toEqual({ topic, payload: new Uint8Array([1, 2, 3]) });
    // Compared as bytes: toEqual walks a 3 MB array element by element (18 s and 2 GB of memory).
    expect(got[1]?.payload.length).toBe(big.length);
    expect(Buffer.from(got[1]!.payload).equals(Buffer.from(big))).toBe(true);
    // The payload is written from the caller's bytes; what the socket has not taken when publish
    // returns is copied: the caller may free its bytes at once (the forwarder does).
    const sends = Array.from({ length: 4 }, (_, k) => Buffer.allocUnsafeSlow(4 * 1024 * 1024).fill(k + 7));
    const acked = sends.map((b) => {
      const done = c.publish(topic, b, 1, false);
      (b.buffer as ArrayBuffer & { transfer(n: number): ArrayBuffer }).transfer(0);
      return done;
    });
    await Promise.all(acked);
    await waitFor("the freed payloads", () => (got.length >= 6 ? true : undefined));
    for (const [k, m] of got.slice(2).entries()) {
      expect(m.payload.length).toBe(4 * 1024 * 1024);
      expect(m.payload.every((v) => v === k + 7)).toBe(true);
    }
    c.end();
    expect(c.open).toBe(false);
    expect(closed).toBe("closed by the client");
  });

  test("the will is published when the connection dies, not after a clean end", async () => {
    const willTopic = `${topic}/will`;
    const got: string[] = [];
    const watcher = await MqttConnection.open(address, { clientId: `w-${crypto.randomUUID()}`, keepaliveSeconds: 30, clean: true }, { message: (_t, p) => got.push(new TextDecoder().decode(p)), closed: () => {} }, 5000);
    await watcher.subscribe([willTopic]);
    const will = (text: string) => ({ topic: willTopic, payload: new TextEncoder().encode(text), qos: 1 as const, retain: false });
    const polite = await MqttConnection.open(address, { clientId: `p-${crypto.randomUUID()}`, keepaliveSeconds: 30, clean: true, will: will("polite") }, { message() {}, closed() {} }, 5000);
    polite.end();
    const rude = await MqttConnection.open(address, { clientId: `r-${crypto.randomUUID()}`, keepaliveSeconds: 30, clean: true, will: will("rude") }, { message() {}, closed() {} }, 5000);
    // Dropping the socket without DISCONNECT, as a crash would.
    (rude as unknown as { fail(r: string): void }).fail("simulated crash");
    await waitFor("the will", () => (got.length > 0 ? true : undefined));
    expect(got).toEqual(["rude"]);
    watcher.end();
  });

  test("a refused connection rejects with the reason; a closed port rejects", async () => {
    // MQTT 3.1.1 forbids an empty client id with clean=false: CONNACK 2, identifier rejected.
    await expect(MqttConnection.open(address, { clientId: "", keepaliveSeconds: 30, clean: false }, { message() {}, closed() {} }, 5000)).rejects.toThrow(/identifier rejected/);
    await expect(MqttConnection.open({ host: "127.0.0.1", port: 1, tls: false }, { clientId: "x", keepaliveSeconds: 30, clean: true }, { message() {}, closed() {} }, 5000)).rejects.toThrow();
  });
});

describe("agent link", () => {
  test("a refused optional subscription is logged and the link still becomes ready", async () => {
    const port = await freePort();
    const auth = await writeTestAuthFile([{ name: "edge", password: "pw", agent: { tenant: "t1", feed: "f1" } }]);
    const col = await startTestCollector({ "mqtt-port": port, "mqtt-host": "127.0.0.1", "auth-file": auth.path });
    const lines: string[] = [];
    let ready = false;
    const msg = (topic: string) => ({ topic, payload: new Uint8Array([1]) });
    const link = new MqttLink(
      {
        url: `mqtt://127.0.0.1:${port}`,
        clientId: "outpost-agent:t1:f1",
        username: "edge",
        password: "pw",
        will: msg("svc/t1/f1/status"),
        online: () => ({ topic: "svc/t1/f1/status", payload: new Uint8Array(0) }),
        subscriptions: ["svc/t1/f1/ack"],
        // Another tenant's topic: the embedded broker grants 0x80.
        optionalSubscriptions: ["svc/t2/f1/triggers"],
        reconnectMinMs: 100,
        reconnectMaxMs: 200,
        log: createLogger("warn", "", (l) => lines.push(l)),
      },
      { ready: () => (ready = true), down() {}, message() {} },
    );
    try {
      link.start();
      await waitFor("ready", () => (ready ? true : undefined));
      expect(lines.some((l) => l.includes("optional subscription failed (svc/t2/f1/triggers)"))).toBe(true);
    } finally {
      await link.stop();
      await col.close();
    }
  });
});
