/**
 * With TLS given, the embedded broker's plain MQTT stays on loopback unless asked for elsewhere
 * (--mqtt-plain-host): the README's secure command opens MQTT over TLS on the network and
 * plain MQTT only for agents on the collector's own host, without a warning to shrug at.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTestAuthFile } from "../helpers/auth.ts";
import { freePort } from "../helpers/ports.ts";
import { Running } from "../helpers/program.ts";
import { createTestCa, type TestCa } from "../helpers/tls.ts";

let ca: TestCa;
let auth: { path: string; dir: string };
const dirs: string[] = [];
beforeAll(async () => {
  ca = createTestCa("Outpost Test CA");
  auth = await writeTestAuthFile([{ name: "edge", password: "edge-pw", agent: { tenant: "t1", feed: "f1" } }]);
});
afterAll(() => {
  for (const d of [ca?.dir, auth?.dir, ...dirs]) if (d) rmSync(d, { recursive: true, force: true });
});

/** The README's secure command with free ports, plus `extra`; the broker's listening lines and every warning. */
async function secureCollector(extra: string[] = []): Promise<{ listening: string[]; warnings: string[] }> {
  const server = ca.issue("collector", { cn: "localhost", server: true });
  const dataDir = mkdtempSync(join(tmpdir(), "outpost-plain-tls-"));
  dirs.push(dataDir);
  const [mqtt, mqtts] = [await freePort(), await freePort()];
  const c = Running.start("collector", [
    ...["--auth-file", auth.path, "--http-host", "0.0.0.0", "--mqtt-host", "0.0.0.0", "--tls-cert", server.certFile, "--tls-key", server.keyFile],
    ...["--data-dir", dataDir, "--http-port", "0", "--mqtt-port", String(mqtt), "--mqtts-port", String(mqtts)],
    ...extra,
  ]);
  try {
    await c.waitForLine(/collector ready/, 30_000);
    return { listening: c.lines.filter((l) => /MQTT broker listening/.test(l)).map((l) => /address=(\S+)/.exec(l)![1]!.replace(String(mqtt), "PLAIN").replace(String(mqtts), "TLS")), warnings: c.lines.filter((l) => / WARN /.test(l)) };
  } finally {
    await c.stop("SIGTERM");
  }
}

describe("plain MQTT beside MQTT over TLS", () => {
  it("the README's secure command: MQTT over TLS on 0.0.0.0, plain MQTT on 127.0.0.1 only, and no warning", async () => {
    const { listening, warnings } = await secureCollector();
    expect(listening).toEqual(["127.0.0.1:PLAIN", "0.0.0.0:TLS"]);
    expect(warnings).toEqual([]);
  });

  it("--mqtt-plain-host 0.0.0.0 asks for plain MQTT on the network: it listens there, with the warning", async () => {
    const { listening, warnings } = await secureCollector(["--mqtt-plain-host", "0.0.0.0"]);
    expect(listening).toEqual(["0.0.0.0:PLAIN", "0.0.0.0:TLS"]);
    expect(warnings.join("\n")).toMatch(/MQTT on 0\.0\.0\.0 is not encrypted: passwords and tokens cross the network in clear/);
  });
});
