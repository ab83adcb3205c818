import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import mqtt from "mqtt";
import { body, startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { freePort } from "../helpers/ports.ts";

const MAX_BODY = 1024 * 1024;
const MAX_PACKET = 64 * 1024;
let col: TestCollector;
let mqttPort: number;
beforeAll(async () => {
  mqttPort = await freePort();
  col = await startTestCollector({ "max-request-body": MAX_BODY, "mqtt-port": mqttPort, "mqtt-host": "127.0.0.1", "mqtt-max-packet": MAX_PACKET });
});
afterAll(async () => {
  await col.close();
});

const points = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ timestamp: 1_600_000_000_000 + i, value: i })));

describe("request body limit", () => {
  it("accepts a body within the limit", async () => {
    const text = points(20_000);
    expect(text.length).toBeLessThan(MAX_BODY);
    const res = await col.req("/svc/metrics/gauges/lim.ok/raw", { method: "POST", body: text, headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(200);
  });

  it("answers 413 with an errorMsg naming the option for a body declared larger, before reading it", async () => {
    const res = await col.req("/svc/metrics/gauges/lim.big/raw", { method: "POST", body: "x".repeat(MAX_BODY + 1), headers: { "Content-Type": "application/json" } });
    expect(res.status).toBe(413);
    expect((await body(res)).errorMsg).toBe(`Request body is ${MAX_BODY + 1} bytes; at most ${MAX_BODY} bytes are accepted (--max-request-body)`);
  });

  it("answers 413 for a chunked body (no Content-Length) as soon as it grows past the limit", async () => {
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        // Up to 64 MB would follow; the server stops reading after 1 MB.
        if (sent >= 64 * MAX_BODY) return c.close();
        sent += 64 * 1024;
        c.enqueue(new Uint8Array(64 * 1024).fill(32));
      },
    });
    const res = await fetch(`${col.url}/svc/metrics/gauges/lim.chunked/raw`, {
      method: "POST",
      body: stream,
      headers: { "Content-Type": "application/json", "Svc-Tenant": "t1" },
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await body(res)).errorMsg).toMatch(/Request body is more than 1048576 bytes; at most 1048576 bytes are accepted \(--max-request-body\)/);
    expect(sent).toBeLessThan(64 * MAX_BODY);
  });

  it("answers 413 on the Influx and remote-write routes too, in their own error bodies", async () => {
    const big = new Uint8Array(MAX_BODY + 1).fill(0x61);
    const influx = await col.req("/write?db=x", { method: "POST", body: big });
    expect(influx.status).toBe(413);
    expect((await body(influx)).error).toMatch(/--max-request-body/);
    const rw = await col.req("/api/v1/write", { method: "POST", body: big, headers: { "Content-Encoding": "snappy", "Content-Type": "application/x-protobuf" } });
    expect(rw.status).toBe(413);
    expect(await body(rw)).toMatchObject({ status: "error", errorType: "bad_data", errorMsg: expect.stringMatching(/--max-request-body/) });
  });

  it("answers 503 when the bodies received at once would exceed four times the limit, and accepts again after", async () => {
    // Five requests that declare the full limit and send slowly: four fit the budget, the fifth does not.
    const held: ReturnType<typeof connect>[] = [];
    for (let i = 0; i < 4; i++) {
      const s = connect(Number(new URL(col.url).port), "127.0.0.1");
      held.push(s);
      s.write(`POST /svc/metrics/gauges/slow${i}/raw HTTP/1.1\r\nHost: 127.0.0.1\r\nSvc-Tenant: t1\r\nContent-Type: application/json\r\nContent-Length: ${MAX_BODY}\r\n\r\n[`);
    }
    await Bun.sleep(200);
    const fifth = await col.req("/svc/metrics/gauges/lim.fifth/raw", { method: "POST", body: points(10), headers: { "Content-Type": "application/json" } });
    expect(fifth.status).toBe(503);
    expect((await body(fifth)).errorMsg).toMatch(/Too many large request bodies/);
    for (const s of held) s.destroy();
    await Bun.sleep(200);
    const after = await col.req("/svc/metrics/gauges/lim.after/raw", { method: "POST", body: points(10), headers: { "Content-Type": "application/json" } });
    expect(after.status).toBe(200);
  });
});

describe("body decoding", () => {
  // Bodies with a Content-Length are read as text by Bun, others as bytes then decoded: the same UTF-8 either way.
  const bytes = (t0: number) =>
    new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(`[{"timestamp":${t0},"value":"a`), 0xff, 0xc3, 0x28, ...new TextEncoder().encode(`é"}]`)]);
  const readBack = async (id: string) => (await body(await col.req(`/svc/metrics/strings/${id}/raw?start=0`))) as { value: string }[];

  it("drops a BOM and replaces invalid UTF-8 the same way with and without Content-Length", async () => {
    const t0 = Date.now() - 60_000;
    const sized = await col.req("/svc/metrics/strings/dec.sized/raw", { method: "POST", body: bytes(t0), headers: { "Content-Type": "application/json" } });
    expect(sized.status).toBe(200);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes(t0));
        c.close();
      },
    });
    const chunked = await fetch(`${col.url}/svc/metrics/strings/dec.chunked/raw`, {
      method: "POST",
      body: stream,
      headers: { "Content-Type": "application/json", "Svc-Tenant": "t1" },
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(200);
    expect((await readBack("dec.sized"))[0]!.value).toBe("a\uFFFD\uFFFD(é");
    expect((await readBack("dec.chunked"))[0]!.value).toBe("a\uFFFD\uFFFD(é");
  });
});

describe("embedded broker packet limit", () => {
  it("disconnects a client that sends a packet over --mqtt-max-packet, and keeps serving others", async () => {
    const big = mqtt.connect(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0 });
    await new Promise((resolve, reject) => {
      big.once("connect", resolve);
      big.once("error", reject);
    });
    const closed = new Promise<void>((resolve) => big.once("close", () => resolve()));
    big.publish("svc/t1/f/data", Buffer.alloc(MAX_PACKET + 1), { qos: 0 });
    await closed;
    big.end(true);

    const small = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0 });
    await small.publishAsync("svc/t1/f/status", Buffer.alloc(100), { qos: 1 });
    expect(small.connected).toBe(true);
    await small.endAsync();
  });
});
