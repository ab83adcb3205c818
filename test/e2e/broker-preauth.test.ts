import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import mqtt from "mqtt";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, waitFor } from "../helpers/ports.ts";
import { BUN, Proc, waitHealthy } from "./harness.ts";

/**
 * What unauthenticated MQTT clients can make the embedded broker hold, against a real
 * collector process: 1,000 connections that never log in — CONNECT packets announcing 256 KiB
 * and sent but for their last byte, CONNECTs cut after 10 bytes, and silent ones. The
 * collector's resident memory must stay within 50 MB of idle, every one of them be closed
 * within seconds, and a real client connect and publish a large packet afterwards.
 */
let proc: Proc | undefined;
let dir: string | undefined;
afterEach(async () => {
  await proc?.kill("SIGKILL");
  proc = undefined;
  if (dir) Bun.spawnSync(["rm", "-rf", dir]);
});

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.split(/\s+/)[1]) * 1024;
}

/** The fixed header of a CONNECT announcing `length` bytes after it. */
function connectHeader(length: number): Uint8Array {
  const out = [0x10];
  let n = length;
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return new Uint8Array(out);
}

function open(port: number, send: (s: Socket) => void): Promise<{ closedAt: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1");
    const closedAt = new Promise<number>((r) => s.once("close", () => r(performance.now())));
    s.once("error", () => {});
    s.once("connect", () => {
      send(s);
      resolve({ closedAt });
    });
    s.once("error", reject);
  });
}

describe("the embedded broker before clients log in", () => {
  it("1,000 connections that never log in leave the collector within 50 MB of idle, and are all closed within seconds", async () => {
    dir = Bun.spawnSync(["mktemp", "-d"]).stdout.toString().trim();
    const httpPort = await freePort();
    const mqttPort = await freePort();
    const url = `http://127.0.0.1:${httpPort}`;
    proc = new Proc("collector", [BUN, "collector/main.ts", "--http-port", String(httpPort), "--mqtt-port", String(mqttPort), "--data-dir", `${dir}/data`, "--log-level", "info"], dir);
    proc.start();
    await waitHealthy(url, proc);
    const pid = proc.pid!;
    await Bun.sleep(2000);
    const idle = rssBytes(pid);
    let peak = idle;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rssBytes(pid));
      } catch {}
    }, 50);

    const BIG = 256 * 1024;
    const body = new Uint8Array(BIG - 1).fill(0x41);
    const started = performance.now();
    const conns: { closedAt: Promise<number> }[] = [];
    for (let i = 0; i < 1000; i++) {
      const kind = i % 4;
      conns.push(
        await open(mqttPort, (s) => {
          if (kind <= 1) {
            // A CONNECT announcing 256 KiB, all but its last byte sent.
            s.write(connectHeader(BIG));
            s.write(body);
          } else if (kind === 2) {
            s.write(Uint8Array.from([0x10, 0x30, 0x00, 0x04, 0x4d, 0x51, 0x54, 0x54, 0x04, 0x02]));
          }
          // kind 3: says nothing.
        }),
      );
    }
    const opened = performance.now();
    const closed = await Promise.all(conns.map((c) => Promise.race([c.closedAt, Bun.sleep(20_000).then(() => Number.POSITIVE_INFINITY)])));
    clearInterval(sampler);
    const lastClosed = Math.max(...closed);
    process.stdout.write(
      `broker before login: idle RSS ${(idle / 2 ** 20).toFixed(1)} MB, peak ${(peak / 2 ** 20).toFixed(1)} MB with 1,000 connections opened in ${((opened - started) / 1000).toFixed(1)} s; all closed ${((lastClosed - opened) / 1000).toFixed(1)} s after the last opened\n`,
    );
    expect(closed.every((t) => Number.isFinite(t))).toBe(true);
    expect(lastClosed - opened).toBeLessThan(10_000);
    expect(peak - idle, `peak ${peak} idle ${idle}`).toBeLessThan(50 * 2 ** 20);

    // A real client still logs in, and once logged in may send packets far larger than a CONNECT.
    const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0, clientId: "outpost-agent:t:f" });
    await client.publishAsync("svc/t/f/status", Buffer.alloc(200 * 1024), { qos: 1 });
    expect(client.connected).toBe(true);
    await client.endAsync();
    const pending = await waitFor("the pending gauge back to 0", async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const v = Number(text.split("\n").find((l) => l.startsWith("outpost_collector_mqtt_connections_pending_login "))?.split(" ")[1]);
      return v === 0 ? v : undefined;
    });
    expect(pending).toBe(0);
    const log = readFileSync(`${dir}/collector-1.log`, "utf8");
    expect(log).toMatch(/MQTT client sent more than --mqtt-preauth-max-bytes before logging in: connection closed/);
    expect(log).toMatch(/MQTT client not logged in within --mqtt-preauth-timeout: connection closed/);
    // One line per kind and address a minute, not one per connection.
    expect(log.split("\n").filter((l) => l.includes("connection closed")).length).toBeLessThan(10);
  }, 120_000);
});
