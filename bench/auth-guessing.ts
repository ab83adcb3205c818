/**
 * How fast an attacker on the collector's own host can guess passwords: wrong passwords for an
 * existing user, sent with 32 attempts in flight for DURATION ms (default 10 s), over HTTP Basic,
 * the console's login and MQTT CONNECT, from one loopback address and rotating over 30
 * (anyone on the host may send from any of 127.0.0.0/8). A guess is an attempt that got a
 * password verdict (HTTP 401, CONNACK 4); a refusal is one turned away before any check (HTTP
 * 429, CONNACK 3). Each case gets a fresh collector process.
 * Run: node_modules/.bin/bun bench/auth-guessing.ts
 */
import { request } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { emptyAuthFile, writeAuthFile } from "../collector/auth/auth-file.ts";
import { hashPassword } from "../collector/auth/secrets.ts";
import { encodeConnect } from "../agent/forward/mqtt/packets.ts";
import { cpuSeconds, fmt, freePort, row, startCollectorProcess, tempDir } from "./_lib.ts";

const DURATION = Number(process.env.DURATION ?? 10_000);
const IN_FLIGHT = 32;
type Verdict = "guess" | "refused" | "other";

function http(port: number, localAddress: string, path: string, method: string, headers: Record<string, string>, body?: string): Promise<number> {
  return new Promise((resolve) => {
    const r = request({ host: "127.0.0.1", port, localAddress, path, method, headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    r.on("error", () => resolve(0));
    r.end(body);
  });
}

function mqttConnect(port: number, localAddress: string, password: string): Promise<number> {
  return new Promise((resolve) => {
    const s = connect({ host: "127.0.0.1", port, localAddress });
    let done = false;
    const finish = (code: number) => {
      if (done) return;
      done = true;
      s.destroy();
      resolve(code);
    };
    s.on("connect", () => s.write(encodeConnect({ clientId: "outpost-agent:acme:edge", keepaliveSeconds: 30, clean: true, username: "edge", password })));
    s.on("data", (d: Buffer) => finish(d[0] === 0x20 ? d[3]! : -1));
    s.on("error", () => finish(-2));
    s.on("close", () => finish(-3));
  });
}

const modes: Record<string, (port: number, mqttPort: number, from: string, i: number) => Promise<Verdict>> = {
  "HTTP Basic": async (port, _m, from, i) => {
    const s = await http(port, from, "/svc/metrics/metrics", "GET", { "Svc-Tenant": "acme", Authorization: `Basic ${btoa(`alice:guess-${i}`)}` });
    return s === 401 ? "guess" : s === 429 ? "refused" : "other";
  },
  "console login": async (port, _m, from, i) => {
    const body = JSON.stringify({ user: "alice", password: `guess-${i}` });
    const s = await http(port, from, "/console/api/login", "POST", { "Content-Type": "application/json", "X-Outpost-Console": "1", "Content-Length": String(body.length) }, body);
    return s === 401 ? "guess" : s === 429 ? "refused" : "other";
  },
  "MQTT CONNECT": async (_p, mqttPort, from, i) => {
    const code = await mqttConnect(mqttPort, from, `guess-${i}`);
    return code === 4 ? "guess" : code === 3 ? "refused" : "other";
  },
};

const work = tempDir("outpost-bench-guess-");
try {
  const file = emptyAuthFile();
  file.users.alice = { password: await hashPassword("alice-password"), tenants: ["acme"] };
  file.users.edge = { password: await hashPassword("edge-password"), agent: { tenant: "acme", feed: "edge" } };
  const authFile = join(work.path, "auth.json");
  writeAuthFile(authFile, file);
  console.log(`${IN_FLIGHT} attempts in flight, ${DURATION / 1000} s per case, wrong passwords for an existing user\n`);
  let n = 0;
  for (const [mode, attempt] of Object.entries(modes)) {
    for (const addresses of [1, 30]) {
      const mqttPort = await freePort();
      const c = await startCollectorProcess(["--data-dir", join(work.path, `c${n++}`), "--auth-file", authFile, "--mqtt-port", String(mqttPort)]);
      try {
        const counts: Record<Verdict, number> = { guess: 0, refused: 0, other: 0 };
        const cpu0 = cpuSeconds(c.proc.pid);
        const end = performance.now() + DURATION;
        let i = 0;
        await Promise.all(
          Array.from({ length: IN_FLIGHT }, async () => {
            while (performance.now() < end) {
              const k = i++;
              counts[await attempt(c.port, mqttPort, `127.0.0.${2 + (k % addresses)}`, k)]++;
            }
          }),
        );
        const s = DURATION / 1000;
        row(
          `${mode}, ${addresses === 1 ? "one address" : "30 loopback addresses"}`,
          `**${fmt(counts.guess / s, 1)} guesses/s** (${counts.guess} checked), ${fmt(counts.refused / s, 0)} refused/s, ${counts.other} other; collector CPU ${fmt(cpuSeconds(c.proc.pid) - cpu0, 1)} s`,
        );
      } finally {
        c.proc.kill();
        await c.proc.exited;
      }
    }
  }
} finally {
  work.remove();
}
