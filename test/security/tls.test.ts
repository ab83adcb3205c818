import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgent } from "../../agent/agent.ts";
import { MqttConnection } from "../../agent/forward/mqtt/connection.ts";
import { MqttLink } from "../../agent/forward/mqtt-link.ts";
import { createLogger } from "../../src/log/logger.ts";
import { agentClientId } from "../../src/protocol/topics.ts";
import { basic, writeTestAuthFile } from "../helpers/auth.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { createTestCa, type TestCa } from "../helpers/tls.ts";

/**
 * Issue 15 item 5: HTTPS and MQTT over TLS with certificates of a CA made for the test; the
 * agent verifies the broker with its CA file, presents a client certificate, logs a refused
 * certificate as such; SIGHUP serves renewed certificates.
 */
let ca: TestCa;
let rogue: TestCa;
let col: TestCollector;
let authDir: string;
let server: { certFile: string; keyFile: string };
let client: { certFile: string; keyFile: string };
let mqttsPort: number;
const read = (f: string) => readFileSync(f, "utf8");

beforeAll(async () => {
  ca = createTestCa("Outpost Test CA");
  rogue = createTestCa("Somebody Else's CA");
  server = ca.issue("collector", { cn: "localhost", server: true });
  client = ca.issue("edge-1", { cn: "edge-1", client: true });
  const auth = await writeTestAuthFile([
    { name: "edge", password: "edge-pw", agent: { tenant: "t1", feed: "f1" } },
    { name: "reader", password: "reader-pw", tenants: ["t1"] },
  ]);
  authDir = auth.dir;
  // The collector reads its certificate from files it is told about; copies let the test renew them.
  copyFileSync(server.certFile, `${ca.dir}/served.crt`);
  copyFileSync(server.keyFile, `${ca.dir}/served.key`);
  mqttsPort = await freePort();
  col = await startTestCollector(
    { "auth-file": auth.path, "tls-cert": `${ca.dir}/served.crt`, "tls-key": `${ca.dir}/served.key`, "tls-client-ca": ca.caFile, "mqtt-port": 0, "mqtts-port": mqttsPort },
    undefined,
    basic("reader", "reader-pw"),
  );
});
afterAll(async () => {
  await col?.close();
  for (const d of [ca?.dir, rogue?.dir, authDir]) if (d) rmSync(d, { recursive: true, force: true });
});

/** The serial number of the certificate a TLS server presents. */
function servedSerial(port: number, clientCert?: { certFile: string; keyFile: string }): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port, ca: read(ca.caFile), servername: "localhost", ...(clientCert ? { cert: read(clientCert.certFile), key: read(clientCert.keyFile) } : {}) }, () => {
      const serial = s.getPeerCertificate().serialNumber;
      s.destroy();
      resolve(serial);
    });
    s.on("error", reject);
  });
}

const agentConnect = (tls: { ca?: string; cert?: string; key?: string }, password = "edge-pw") =>
  MqttConnection.open(
    { host: "localhost", port: mqttsPort, tls: true },
    { clientId: agentClientId("t1", "f1"), keepaliveSeconds: 30, clean: true, username: "edge", password },
    { message() {}, closed() {} },
    5000,
    tls,
  );

describe("HTTPS", () => {
  it("serves the interfaces over TLS with the configured certificate", async () => {
    expect(col.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${col.url.replace("127.0.0.1", "localhost")}/svc/metrics/metrics`, { headers: { "Svc-Tenant": "t1", Authorization: basic("reader", "reader-pw") }, tls: { ca: read(ca.caFile) } });
    expect(res.status).toBe(204);
    await expect(fetch(`${col.url}/health`, { tls: { ca: read(rogue.caFile) } })).rejects.toThrow(/certificate/i);
  });
});

describe("MQTT over TLS on the embedded broker", () => {
  it("an agent verifying the broker with its CA and presenting its client certificate gets in", async () => {
    const c = await agentConnect({ ca: read(ca.caFile), cert: read(client.certFile), key: read(client.keyFile) });
    await c.subscribe(["svc/t1/f1/ack"]);
    c.end();
  });

  it("the agent program forwards end to end over mqtts://, and the points read back over HTTPS", async () => {
    const pwFile = `${authDir}/edge-password`;
    writeFileSync(pwFile, "edge-pw\n", { mode: 0o600 });
    const agent = await startAgent({
      broker: `mqtts://localhost:${mqttsPort}`,
      "ca-file": ca.caFile,
      "cert-file": client.certFile,
      "key-file": client.keyFile,
      username: "edge",
      "password-file": pwFile,
      tenant: "t1",
      feed: "f1",
      "data-dir": `${authDir}/agent`,
      listen: "127.0.0.1:0",
      "host-metrics": false,
      "log-level": "warn",
      interval: 60_000,
    });
    try {
      const ts = Date.now() - 1000;
      const res = await fetch(`${agent.url}/svc/metrics/gauges/raw`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify([{ id: "over-tls", dataPoints: [{ timestamp: ts, value: 42 }] }]) });
      expect(res.status).toBe(200);
      const points = await waitFor("the point at the collector", async () => {
        const r = await fetch(`${col.url.replace("127.0.0.1", "localhost")}/svc/metrics/gauges/over-tls/raw?start=${ts - 1}&end=${ts + 1}`, {
          headers: { "Svc-Tenant": "t1", Authorization: basic("reader", "reader-pw") },
          tls: { ca: read(ca.caFile) },
        });
        return r.status === 200 ? ((await r.json()) as { value: number }[]) : undefined;
      });
      expect(points.map((p) => p.value)).toEqual([42]);
    } finally {
      await agent.stop();
    }
  });

  it("a broker certificate from another CA is refused and reported as a certificate failure", async () => {
    await expect(agentConnect({ ca: read(rogue.caFile), cert: read(client.certFile), key: read(client.keyFile) })).rejects.toThrow(/TLS certificate check failed: .*(certificate|verify)/i);
  });

  it("a broker whose certificate names another host is refused", async () => {
    const elsewhere = ca.issue("elsewhere", { cn: "broker.example", server: true, san: "DNS:broker.example" });
    const impostor = Bun.listen({ hostname: "127.0.0.1", port: 0, tls: { cert: read(elsewhere.certFile), key: read(elsewhere.keyFile) }, socket: { data() {} } });
    try {
      const open = MqttConnection.open(
        { host: "localhost", port: impostor.port, tls: true },
        { clientId: "x", keepaliveSeconds: 30, clean: true },
        { message() {}, closed() {} },
        5000,
        { ca: read(ca.caFile) },
      );
      await expect(open).rejects.toThrow(/TLS certificate check failed: .*ERR_TLS_CERT_ALTNAME_INVALID/);
    } finally {
      impostor.stop(true);
    }
  });

  it("an agent without a client certificate is refused by the broker", async () => {
    await expect(agentConnect({ ca: read(ca.caFile) })).rejects.toThrow(/TLS: the broker refused this agent's client certificate/);
  });

  it("the agent's link logs the certificate failure as such, not as a closed connection", async () => {
    const lines: string[] = [];
    const link = new MqttLink(
      {
        url: `mqtts://localhost:${mqttsPort}`,
        clientId: agentClientId("t1", "f1"),
        username: "edge",
        password: "edge-pw",
        tls: () => ({ ca: read(rogue.caFile), cert: read(client.certFile), key: read(client.keyFile) }),
        will: { topic: "svc/t1/f1/status", payload: new Uint8Array([1]) },
        online: () => ({ topic: "svc/t1/f1/status", payload: new Uint8Array([1]) }),
        subscriptions: ["svc/t1/f1/ack"],
        reconnectMinMs: 100,
        reconnectMaxMs: 200,
        log: createLogger("warn", "", (l) => lines.push(l)),
      },
      { ready() {}, down() {}, message() {} },
    );
    link.start();
    try {
      await waitFor("the warning", () => (lines.length > 0 ? true : undefined));
      expect(lines[0]).toMatch(/cannot connect to the broker url=mqtts:\/\/localhost:\d+ reason=TLS certificate check failed: /);
    } finally {
      await link.stop();
    }
  });
});

describe("the HTTPS port", () => {
  it("taken by a running collector is refused in one line, though HTTPS listens with SO_REUSEPORT", async () => {
    const port = Number(new URL(col.url).port);
    const second = startTestCollector({ "http-port": port, "tls-cert": `${ca.dir}/served.crt`, "tls-key": `${ca.dir}/served.key`, "mqtt-port": 0, "mqtts-port": 0 });
    await expect(second).rejects.toThrow(`HTTP address 127.0.0.1:${port} is already in use`);
  });
});

describe("SIGHUP re-reads the certificates", () => {
  it("new connections get the renewed certificate on HTTPS and MQTT over TLS", async () => {
    const httpsPort = Number(new URL(col.url).port);
    const before = await servedSerial(httpsPort);
    expect(await servedSerial(mqttsPort, client)).toBe(before);
    const renewed = ca.issue("collector-renewed", { cn: "localhost", server: true });
    copyFileSync(renewed.certFile, `${ca.dir}/served.crt`);
    copyFileSync(renewed.keyFile, `${ca.dir}/served.key`);
    await col.reload();
    const after = await servedSerial(httpsPort);
    expect(after).not.toBe(before);
    expect(await servedSerial(mqttsPort, client)).toBe(after);
    // And the interfaces still answer on the new certificate.
    expect((await fetch(`${col.url.replace("127.0.0.1", "localhost")}/health`, { tls: { ca: read(ca.caFile) } })).status).toBe(200);
  });
});
