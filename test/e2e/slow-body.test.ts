import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports.ts";
import { BUN, Proc, waitHealthy } from "./harness.ts";

/**
 * Clients that trickle a request body, against real collector and agent processes: each byte
 * keeps the connection from idling out, so before, 200 such connections stayed open as long as
 * the client liked. Now a body must arrive within --request-body-timeout (10 s by default) plus
 * a second per --request-body-min-rate bytes (16 KB); slower ones get 408 and are closed.
 */
const procs: Proc[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) await p.kill("SIGKILL");
});

interface Trickle {
  status: number;
  /** When the server answered, and when it closed the connection, ms after the headers were sent. */
  answeredMs: number;
  closedMs: number;
}

/**
 * Sends the headers of a write, then `chunk` every `everyMs` until the server answers or
 * `bytes` were sent; chunked: Transfer-Encoding chunked instead of a Content-Length.
 */
function trickle(port: number, o: { bytes: number; chunk: number; everyMs: number; chunked?: boolean; path?: string }): Promise<Trickle> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1");
    const t0 = performance.now();
    let head = "";
    let answeredMs = Number.NaN;
    let timer: ReturnType<typeof setInterval> | undefined;
    s.on("data", (d) => {
      if (head === "") answeredMs = performance.now() - t0;
      head += d.toString();
    });
    s.on("close", () => {
      clearInterval(timer);
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0), answeredMs, closedMs: performance.now() - t0 });
    });
    s.on("error", reject);
    s.on("connect", () => {
      const path = o.path ?? "/svc/metrics/gauges/slow/raw";
      const length = o.chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${o.bytes}`;
      s.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nSvc-Tenant: acme\r\n${length}\r\n\r\n`);
      let sent = 0;
      timer = setInterval(() => {
        if (s.destroyed || sent >= o.bytes) return clearInterval(timer);
        const n = Math.min(o.chunk, o.bytes - sent);
        const part = " ".repeat(n);
        s.write(o.chunked ? `${n.toString(16)}\r\n${part}\r\n` : part);
        sent += n;
      }, o.everyMs);
    });
  });
}

async function startCollector(extra: string[] = []): Promise<number> {
  const port = await freePort();
  const dir = Bun.spawnSync(["mktemp", "-d"]).stdout.toString().trim();
  const p = new Proc("collector", [BUN, "collector/main.ts", "--http-port", String(port), "--mqtt-port", "0", "--data-dir", `${dir}/data`, ...extra], dir);
  procs.push(p);
  p.start();
  await waitHealthy(`http://127.0.0.1:${port}`, p);
  return port;
}

describe("request bodies that arrive too slowly", () => {
  it("200 connections trickling a body a byte a second: all answered 408 and closed after the default 10 s (plus the allowance of their size)", async () => {
    const port = await startCollector();
    // 2,000 bytes are allowed 10 s + 2000/16384 s.
    const all = await Promise.all(Array.from({ length: 200 }, () => trickle(port, { bytes: 2000, chunk: 1, everyMs: 1000 })));
    expect(all.every((t) => t.status === 408)).toBe(true);
    const answered = all.map((t) => t.answeredMs);
    expect(Math.min(...answered)).toBeGreaterThan(9_500);
    expect(Math.max(...all.map((t) => t.closedMs))).toBeLessThan(20_000);
    process.stdout.write(`slow bodies: 200 trickling connections answered 408 after ${(Math.min(...answered) / 1000).toFixed(1)}–${(Math.max(...answered) / 1000).toFixed(1)} s\n`);
  }, 60_000);

  it("chunked bodies are held to the same pace; a slow but steady body within it is taken", async () => {
    const port = await startCollector(["--request-body-timeout", "2s", "--request-body-min-rate", "1KB"]);
    const chunked = await trickle(port, { bytes: 100_000, chunk: 10, everyMs: 200, chunked: true });
    expect(chunked.status).toBe(408);
    expect(chunked.answeredMs).toBeGreaterThan(1_500);
    expect(chunked.answeredMs).toBeLessThan(6_000);
    // 4 KB at 2 KB/s: within 2 s + 4 s.
    const points = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ timestamp: 1_700_000_000_000 + i, value: i })));
    const body = `${points}${" ".repeat(4096 - points.length)}`;
    const fine = await new Promise<number>((resolve, reject) => {
      const s = connect(port, "127.0.0.1");
      let head = "";
      s.on("data", (d) => {
        head += d.toString();
        if (head.includes("\r\n\r\n")) {
          s.destroy();
          resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]));
        }
      });
      s.on("error", reject);
      s.on("connect", async () => {
        s.write(`POST /svc/metrics/gauges/steady/raw HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nSvc-Tenant: acme\r\nContent-Length: ${body.length}\r\n\r\n`);
        for (let i = 0; i < body.length; i += 512) {
          s.write(body.slice(i, i + 512));
          await Bun.sleep(250);
        }
      });
    });
    expect(fine).toBe(200);
  }, 60_000);

  it("the agent's write API too", async () => {
    const port = await freePort();
    const dir = Bun.spawnSync(["mktemp", "-d"]).stdout.toString().trim();
    const p = new Proc("agent", [BUN, "agent/main.ts", "--broker", `mqtt://127.0.0.1:${await freePort()}`, "--tenant", "acme", "--feed", "f", "--data-dir", `${dir}/a`, "--listen", `127.0.0.1:${port}`, "--request-body-timeout", "2s"], dir);
    procs.push(p);
    p.start();
    await waitHealthy(`http://127.0.0.1:${port}`, p);
    const t = await trickle(port, { bytes: 2000, chunk: 1, everyMs: 100 });
    expect(t.status).toBe(408);
    expect(t.answeredMs).toBeLessThan(6_000);
  }, 60_000);
});
