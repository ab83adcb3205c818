import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** Whether a TCP server can listen on 127.0.0.1:port now (it is closed again at once). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

/** The lowest port the kernel gives to outgoing connections and to servers asking for port 0. */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > 10_000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}
const EPHEMERAL_START = ephemeralStart();

/**
 * A TCP port that was free a moment ago on 127.0.0.1 (for servers that must keep their port
 * across restarts). Chosen at random below the kernel's ephemeral range: a port the kernel had
 * just handed out (and taken back) could be given at once to another test's outgoing connection
 * as its source port, before the server it was chosen for bound it (an agent in CI was refused
 * its --listen port that way: "already in use").
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = 10_000 + Math.floor(Math.random() * (EPHEMERAL_START - 10_000));
    if (await bindable(port)) return port;
  }
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ""}`);
    await Bun.sleep(everyMs);
  }
}
