import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports.ts";

const ROOT = join(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "outpost-startup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[]) {
  const p = Bun.spawn([process.execPath, join(ROOT, "collector/main.ts"), "--data-dir", dir, "--log-level", "error", ...args], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  return { code, err };
}

describe("collector start-up: secure by default", () => {
  it("a non-loopback address without --auth-file: exit 2 and one line saying what to do", async () => {
    for (const [args, what] of [
      [["--http-host", "0.0.0.0"], "HTTP on 0.0.0.0 (--http-host)"],
      [["--mqtt-host", "0.0.0.0", "--mqtt-port", "1"], "MQTT on 0.0.0.0 (--mqtt-host)"],
    ] as const) {
      const { code, err } = await run(["--http-port", "0", "--mqtt-port", "0", ...args]);
      expect(code).toBe(2);
      expect(err.trim().split("\n")).toHaveLength(1);
      expect(err).toContain(`refusing to serve ${what} without --auth-file`);
      expect(err).toContain("--insecure");
    }
  });

  it("by default HTTP and MQTT listen on loopback; --insecure opens them with a warning at every start", async () => {
    const listening = async (args: string[]) => {
      const p = Bun.spawn([process.execPath, join(ROOT, "collector/main.ts"), "--data-dir", dir, "--http-port", "0", "--mqtt-port", String(await freePort()), "--log-level", "info", ...args], { stdout: "ignore", stderr: "pipe" });
      let err = "";
      const reader = p.stderr.getReader();
      while (!err.includes("collector ready")) {
        const { value, done } = await reader.read();
        if (done) break;
        err += new TextDecoder().decode(value);
      }
      p.kill("SIGTERM");
      await p.exited;
      return err;
    };
    const safe = await listening([]);
    expect(safe).toMatch(/HTTP listening address=127\.0\.0\.1:\d+ url=http:\/\/127\.0\.0\.1:\d+/);
    expect(safe).toContain("embedded broker on mqtt://127.0.0.1:");
    expect(safe).not.toContain("WARN");
    const open = await listening(["--http-host", "0.0.0.0", "--mqtt-host", "0.0.0.0", "--insecure"]);
    expect(open).toMatch(/WARN .*--insecure: HTTP on 0\.0\.0\.0 \(--http-host\) and MQTT on 0\.0\.0\.0 \(--mqtt-host\) without credentials/);
  });

  it("plain passwords on the command line are refused, and retired options say what replaced them", async () => {
    const pw = await run(["--broker-password", "hunter2"]);
    expect(pw.code).toBe(2);
    expect(pw.err).toMatch(/--broker-password is not accepted on the command line.*OUTPOST_BROKER_PASSWORD.*--broker-password-file/);
    const old = await run(["--agent-credentials", "t:u:p"]);
    expect(old.code).toBe(2);
    expect(old.err).toMatch(/--agent-credentials no longer exists: .*--auth-file/);
  });

  it("a missing or invalid auth file, half a TLS pair: exit 2 and one line", async () => {
    const missing = await run(["--http-port", "0", "--mqtt-port", "0", "--auth-file", join(dir, "nope.json")]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain(`cannot read auth file ${join(dir, "nope.json")}: ENOENT`);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ outpostAuth: 1, users: { eve: { password: "plain!", tenants: ["a"] } } }));
    const invalid = await run(["--http-port", "0", "--mqtt-port", "0", "--auth-file", bad]);
    expect(invalid.code).toBe(2);
    expect(invalid.err).toMatch(/auth file .*bad\.json: users\.eve\.password: is not an argon2 hash/);
    const half = await run(["--http-port", "0", "--mqtt-port", "0", "--tls-cert", bad]);
    expect(half.code).toBe(2);
    expect(half.err).toContain("--tls-cert and --tls-key go together");
  });
});
