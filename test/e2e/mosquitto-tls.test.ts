import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Agent, startAgent } from "../../agent/agent.ts";
import { basic, writeTestAuthFile } from "../helpers/auth.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";
import { freePort, waitFor } from "../helpers/ports.ts";
import { createTestCa, type TestCa } from "../helpers/tls.ts";
import { MOSQUITTO, portOpen } from "../helpers/mosquitto.ts";
import { Proc, writeSecuredMosquittoConf } from "./harness.ts";

/**
 * An external Mosquitto over TLS, configured only from `auth mosquitto-files --tls-cert
 * --tls-key`: the collector connects with mqtts:// and --broker-ca-file, its password given as
 * a value (environment or TOML in real use), and an agent with --ca-file delivers end to end.
 */
let ca: TestCa;
let authDir: string;
let mosquitto: Proc;
let col: TestCollector;
let agent: Agent;
let port: number;

beforeAll(async () => {
  ca = createTestCa("Mosquitto Test CA");
  const server = ca.issue("mosquitto", { cn: "localhost", server: true });
  const auth = await writeTestAuthFile([
    { name: "edge", password: "edge-pw", agent: { tenant: "acme", feed: "edge-1" } },
    { name: "outpost-collector", password: "collector-pw", collector: true },
    { name: "reader", password: "reader-pw", tenants: ["acme"] },
  ]);
  authDir = auth.dir;
  port = await freePort();
  const conf = writeSecuredMosquittoConf(authDir, auth.path, port, ["--tls-cert", server.certFile, "--tls-key", server.keyFile], [server.keyFile]);
  mosquitto = new Proc("mosquitto", [MOSQUITTO, "-c", conf], authDir);
  mosquitto.start();
  await waitFor("mosquitto over TLS", async () => {
    if (!mosquitto.running) throw new Error(`mosquitto exited\n${mosquitto.tail()}`);
    return (await portOpen(port)) ? true : undefined;
  });
  col = await startTestCollector(
    { "auth-file": auth.path, broker: `mqtts://localhost:${port}`, "broker-ca-file": ca.caFile, "broker-username": "outpost-collector", "broker-password": "collector-pw" },
    undefined,
    basic("reader", "reader-pw"),
  );
  agent = await startAgent({
    broker: `mqtts://localhost:${port}`,
    "ca-file": ca.caFile,
    username: "edge",
    password: "edge-pw",
    tenant: "acme",
    feed: "edge-1",
    "data-dir": join(authDir, "agent"),
    listen: "127.0.0.1:0",
    "host-metrics": false,
    "log-level": "warn",
    interval: 60_000,
  });
});
afterAll(async () => {
  await agent?.stop();
  await col?.close();
  await mosquitto?.kill("SIGTERM");
  for (const d of [authDir, ca?.dir]) if (d) rmSync(d, { recursive: true, force: true });
});

describe("Mosquitto over TLS from the generated files", () => {
  it("carries an agent's points to the collector, both verifying the broker's certificate", async () => {
    const ts = Date.now() - 1000;
    const res = await fetch(`${agent.url}/svc/metrics/gauges/raw`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify([{ id: "via-mosquitto-tls", dataPoints: [{ timestamp: ts, value: 7 }] }]) });
    expect(res.status).toBe(200);
    const got = await waitFor(
      "the point at the collector",
      async () => {
        const r = await col.req(`/svc/metrics/gauges/via-mosquitto-tls/raw?start=${ts - 1}&end=${ts + 1}`, { tenant: "acme" });
        return r.status === 200 ? ((await r.json()) as { value: number }[]) : undefined;
      },
      20_000,
    );
    expect(got.map((p) => p.value)).toEqual([7]);
  });
});
