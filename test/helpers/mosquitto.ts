/**
 * A private Mosquitto for the tests that need a real external broker: its own config file and
 * an ephemeral port, started per test file, so that nothing depends on a broker the machine
 * happens to run on 1883. `.ci/run` installs the `mosquitto` package when it is missing.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, waitFor } from "./ports.ts";

/** Debian installs it in /usr/sbin, which is not on every user's PATH. */
export const MOSQUITTO = Bun.which("mosquitto") ?? "/usr/sbin/mosquitto";

/** A configuration for one anonymous listener on 127.0.0.1:`port`, without persistence. */
export function writeMosquittoConfig(dir: string, port: number): string {
  const conf = join(dir, "mosquitto.conf");
  writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`);
  return conf;
}

export async function portOpen(port: number): Promise<boolean> {
  try {
    const s = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } });
    s.end();
    return true;
  } catch {
    return false;
  }
}

export interface PrivateMosquitto {
  port: number;
  /** mqtt://127.0.0.1:PORT */
  url: string;
  stop(): Promise<void>;
}

/** Starts Mosquitto on a free port and waits until it accepts connections. */
export async function startMosquitto(): Promise<PrivateMosquitto> {
  const dir = mkdtempSync(join(tmpdir(), "outpost-mosquitto-"));
  const port = await freePort();
  const p: Subprocess = Bun.spawn([MOSQUITTO, "-c", writeMosquittoConfig(dir, port)], { stdout: "ignore", stderr: "pipe", stdin: "ignore" });
  const stop = async () => {
    p.kill("SIGKILL");
    await p.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor("mosquitto", async () => {
      if (p.exitCode !== null) throw new Error(`mosquitto exited: ${await new Response(p.stderr as ReadableStream).text()}`);
      return (await portOpen(port)) ? true : undefined;
    });
  } catch (e) {
    await stop();
    throw e;
  }
  return { port, url: `mqtt://127.0.0.1:${port}`, stop };
}
