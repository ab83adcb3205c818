import { request } from "node:http";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { afterEach, describe, expect, it } from "vitest";
import { encodeConnect } from "../../agent/forward/mqtt/packets.ts";
import { writeTestAuthFile } from "../helpers/auth.ts";
import { freePort } from "../helpers/ports.ts";
import { BUN, Proc, waitHealthy } from "./harness.ts";

/**
 * Password guessing against a real collector process, as an attacker on its host can try it:
 * many attempts at once (the throttle used to count a failure only after its check, so they all
 * ran), from many loopback addresses (anyone on the host can send from all of 127.0.0.0/8),
 * over HTTP Basic, the console's login and MQTT CONNECT. And the user being guessed still logs
 * in from an address of their own.
 */
let proc: Proc | undefined;
afterEach(async () => {
  await proc?.kill("SIGKILL");
  proc = undefined;
});

const ALICE = "alice-password-1";

function http(port: number, host: string, localAddress: string, path: string, method: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const r = request({ host, port, localAddress, path, method, headers: { ...headers, ...(body ? { "Content-Length": String(Buffer.byteLength(body)) } : {}) }, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    r.on("error", reject);
    r.end(body);
  });
}

const basicGuess = (port: number, from: string, password: string) =>
  http(port, "127.0.0.1", from, "/svc/metrics/metrics", "GET", { "Svc-Tenant": "acme", Authorization: `Basic ${btoa(`alice:${password}`)}` });

const consoleLogin = (port: number, host: string, from: string, password: string) =>
  http(port, host, from, "/console/api/login", "POST", { "Content-Type": "application/json", "X-Outpost-Console": "1" }, JSON.stringify({ user: "alice", password }));

/** The CONNACK return code a CONNECT with these credentials gets. */
function mqttLogin(port: number, from: string, password: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port, localAddress: from });
    s.on("connect", () => s.write(encodeConnect({ clientId: "outpost-agent:acme:edge", keepaliveSeconds: 30, clean: true, username: "edge", password })));
    s.on("data", (d: Buffer) => {
      s.destroy();
      resolve(d[0] === 0x20 ? d[3]! : -1);
    });
    // Closed without a CONNACK.
    s.on("close", () => resolve(-1));
    s.on("error", reject);
  });
}

function tally(codes: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of codes) out[c] = (out[c] ?? 0) + 1;
  return out;
}

async function start(host: string): Promise<{ port: number; mqttPort: number }> {
  const auth = await writeTestAuthFile([
    { name: "alice", password: ALICE, tenants: ["acme"] },
    { name: "edge", password: "edge-password-1", agent: { tenant: "acme", feed: "edge" } },
  ]);
  const port = await freePort();
  const mqttPort = await freePort();
  proc = new Proc(
    "collector",
    [BUN, "collector/main.ts", "--http-port", String(port), "--http-host", host, "--mqtt-port", String(mqttPort), "--data-dir", `${auth.dir}/data`, "--auth-file", auth.path, "--log-level", "warn"],
    auth.dir,
  );
  proc.start();
  await waitHealthy(`http://127.0.0.1:${port}`, proc);
  return { port, mqttPort };
}

describe("password guessing from the collector's own host", () => {
  it("60 console logins sent at once from one address: 5 checked, the rest refused before any check", async () => {
    const { port } = await start("127.0.0.1");
    const codes = await Promise.all(Array.from({ length: 60 }, (_, i) => consoleLogin(port, "127.0.0.1", "127.0.0.1", `guess-${i}`)));
    expect(tally(codes)).toEqual({ 401: 5, 429: 55 });
  }, 60_000);

  it("150 HTTP Basic guesses from 30 loopback addresses, 32 at a time: loopback is one address, 5 checked", async () => {
    const { port } = await start("127.0.0.1");
    const codes: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < 150) {
          const i = next++;
          codes.push(await basicGuess(port, `127.0.0.${2 + (i % 30)}`, `guess-${i}`));
        }
      }),
    );
    expect(tally(codes)).toEqual({ 401: 5, 429: 145 });
  }, 60_000);

  it("166 MQTT CONNECTs with wrong passwords, 30 at a time from 30 addresses: 5 checked (CONNACK 4), the rest refused (CONNACK 3)", async () => {
    const { mqttPort } = await start("127.0.0.1");
    const codes: number[] = [];
    // 30 at once stays under the connections a loopback client may have waiting to log in (32).
    for (let wave = 0; wave < 166; wave += 30) {
      const n = Math.min(30, 166 - wave);
      codes.push(...(await Promise.all(Array.from({ length: n }, (_, i) => mqttLogin(mqttPort, `127.0.0.${2 + i}`, `guess-${wave + i}`)))));
      // Until the broker has seen the last wave's connections close.
      await Bun.sleep(300);
    }
    expect(tally(codes)).toEqual({ 3: 161, 4: 5 });
  }, 60_000);

  it("the guessed user still logs in from another address while the guessing goes on", async () => {
    const nic = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a && !a.internal && !a.address.startsWith("fe80"));
    const v4 = nic.find((a) => a?.family === "IPv4")?.address;
    const v6 = nic.find((a) => a?.family === "IPv6")?.address;
    if (!v4 || !v6) throw new Error("this test needs a non-loopback IPv4 and IPv6 address on the host");
    // With an auth file the collector may listen beyond loopback (plain HTTP is warned about).
    const { port } = await start("::");
    // Guesses from loopback and from the IPv6 address fill alice's own budget (5 + 5).
    const guesses = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => consoleLogin(port, "127.0.0.1", "127.0.0.1", `guess-a${i}`)),
      ...Array.from({ length: 20 }, (_, i) => consoleLogin(port, v6, v6, `guess-b${i}`)),
    ]);
    expect(tally(guesses)).toEqual({ 401: 10, 429: 30 });
    expect(await consoleLogin(port, "127.0.0.1", "127.0.0.9", "guess-more")).toBe(429);
    // Alice, from an address that did not guess: checked, and let in.
    expect(await consoleLogin(port, v4, v4, ALICE)).toBe(200);
  }, 60_000);
});
