import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
let taken: Server;
let port: number;
const dir = mkdtempSync(join(tmpdir(), "outpost-startup-"));

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
  port = (taken.address() as { port: number }).port;
});
afterAll(() => {
  taken.close();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[]) {
  const p = Bun.spawn([process.execPath, join(ROOT, "collector/main.ts"), "--data-dir", dir, "--log-level", "error", ...args], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  return { code, err };
}

describe("collector start-up errors the user can fix", () => {
  it("a taken MQTT port: exit 2 and one line saying how to choose", async () => {
    const { code, err } = await run(["--http-port", "0", "--http-host", "127.0.0.1", "--mqtt-host", "127.0.0.1", "--mqtt-port", String(port)]);
    expect(code).toBe(2);
    expect(err).toContain(`MQTT port ${port} is already in use`);
    expect(err).toContain("--broker");
    expect(err).not.toContain("    at ");
  });

  it("a taken HTTP port: exit 2 and one line", async () => {
    const { code, err } = await run(["--http-port", String(port), "--http-host", "127.0.0.1", "--mqtt-port", "0"]);
    expect(code).toBe(2);
    expect(err.trim()).toBe(`error: HTTP port ${port} is already in use: choose another with --http-port`);
  });

  it("an unknown option: exit 2", async () => {
    const { code, err } = await run(["--no-such-option"]);
    expect(code).toBe(2);
    expect(err).toContain("unknown option --no-such-option");
  });
});
