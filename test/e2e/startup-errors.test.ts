/**
 * Every start-up failure of either program is one line on stderr and exit code 2, never a
 * stack trace; --version and --check-config print and exit. The real programs, as subprocesses.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROGRAMS, type ProgramName, type RunResult, readUntil, run, runToEnd } from "../helpers/program.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-startup-"));
let taken: Server;
let port: number;

beforeAll(async () => {
  taken = createServer();
  await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
  port = (taken.address() as { port: number }).port;
});
afterAll(() => {
  taken.close();
  rmSync(dir, { recursive: true, force: true });
});

const collectorArgs = (...more: string[]) => ["--data-dir", join(dir, "c"), "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-host", "127.0.0.1", "--mqtt-port", "0", ...more];
const agentArgs = (...more: string[]) => ["--tenant", "t", "--feed", "f", "--data-dir", join(dir, "a"), "--listen", "127.0.0.1:0", "--broker", "mqtt://127.0.0.1:1", ...more];

/** Exit code 2 and exactly one line, `error: <message>`. */
function oneLine(r: RunResult, message: string | RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trimEnd().split("\n");
  // Log lines of what had started may come first; the error is the last line and stands alone.
  const last = lines.at(-1)!;
  if (typeof message === "string") expect(last).toBe(`error: ${message}`);
  else expect(last).toMatch(message);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(lines.filter((l) => l.startsWith("error:"))).toHaveLength(1);
}

describe.each(["collector", "agent"] as ProgramName[])("%s: bad options and configuration", (program) => {
  const args = program === "collector" ? collectorArgs : agentArgs;

  it("an unknown option, with the closest valid one", async () => {
    oneLine(await run(program, args("--data-dri", "x")), "unknown option --data-dri (did you mean --data-dir?)");
  });

  it("a duration without a unit, a value out of range, a wrong choice", async () => {
    const key = program === "collector" ? "watch-heartbeat" : "interval";
    oneLine(await run(program, args(`--${key}`, "10")), `--${key}: "10" needs a unit, e.g. "10s" (units: ms, s, m, h, d)`);
    oneLine(await run(program, args("--shutdown-timeout", "1h")), '--shutdown-timeout: "1h" must be between 1s and 10m');
    oneLine(await run(program, args("--log-format", "xml")), '--log-format: "xml" is not one of text, json');
  });

  it("an unknown key or section in the TOML file", async () => {
    const section = program === "collector" ? "collector" : "agent";
    const f = join(dir, `${program}-typo.toml`);
    writeFileSync(f, `[${section}]\ndata-dri = "/x"\n`);
    oneLine(await run(program, ["--config", f]), `${f}: [${section}] data-dri: unknown key (did you mean "data-dir"?)`);
    const g = join(dir, `${program}-section.toml`);
    writeFileSync(g, `[${section.slice(0, -1)}]\n`);
    oneLine(await run(program, ["--config", g]), `${g}: unknown section [${section.slice(0, -1)}] (did you mean [${section}]?)`);
  });

  it("an unknown variable with the program's prefix", async () => {
    const v = program === "collector" ? "OUTPOST_DATA_DRI" : "OUTPOST_AGENT_DATA_DRI";
    oneLine(await run(program, args(), { env: { [v]: "/x" } }), new RegExp(`^error: unknown environment variable ${v} \\(did you mean "${v.replace("DRI", "DIR")}"\\?\\)$`));
  });

  it("a data folder that cannot be created or written", async () => {
    const file = join(dir, `${program}-file`);
    writeFileSync(file, "");
    oneLine(await run(program, [...args(), "--data-dir", join(file, "data")]), `--data-dir ${join(file, "data")}: cannot create the folder (a part of the path is a file)`);
    // Not writable by the user running it: as root, that user is nobody.
    const ro = join(dir, `${program}-readonly`);
    mkdirSync(ro);
    chmodSync(ro, 0o555);
    chmodSync(dir, 0o755);
    const asUser = process.getuid?.() === 0 ? ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] : [];
    const r = await runToEnd([...asUser, process.execPath, PROGRAMS[program], ...args(), "--data-dir", ro]);
    oneLine(r, `--data-dir ${ro}: not writable by this user (permission denied)`);
  });

  it("--version prints the version and build, --check-config the configuration", async () => {
    const v = await run(program, ["--version"]);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(new RegExp(`^outpost-${program} \\d+\\.\\d+\\.\\d+ \\(commit ([0-9a-f]{12}(-dirty)?|unknown), run from source, bun \\d+\\.\\d+\\.\\d+, linux-(x64|arm64)\\)\\n$`));
    const c = await run(program, [...args(), "--check-config"]);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout).toMatch(/^configuration OK\n/);
    expect(c.stdout).toMatch(/ data-dir +"[^"]+" +\[flag\]/);
    expect(c.stdout).toMatch(/ log-format +"text" +\[default\]/);
    oneLine(await run(program, [...args("--log-level", "loud"), "--check-config"]), '--log-level: "loud" is not one of debug, info, warn, error, silent');
  });
});

describe("any other failure while starting", () => {
  it("an error of a library (a certificate it cannot parse, say) is one line and exit 2; its stack only with --log-level debug", async () => {
    const fixture = join(PROGRAMS.agent, "../../test/fixtures/programs/failing-start.ts");
    oneLine(await runToEnd([process.execPath, fixture]), "/etc/outpost/tls.pem: error:0900006e:PEM routines:OPENSSL_internal:NO_START_LINE");
    const debug = await runToEnd([process.execPath, fixture, "--log-level", "debug"]);
    expect(debug.code).toBe(2);
    expect(debug.stderr).toMatch(/^\s+at .*failing-start\.ts/m);
  });
});

describe("collector: ports and files", () => {
  it("a taken HTTP or MQTT port that was chosen", async () => {
    oneLine(await run("collector", collectorArgs("--http-port", String(port))), `HTTP address 127.0.0.1:${port} is already in use: choose another with --http-port`);
    oneLine(await run("collector", collectorArgs("--mqtt-port", String(port))), new RegExp(`^error: MQTT address 127\\.0\\.0\\.1:${port} is already in use: choose another with --mqtt-port \\(or use that broker with --mqtt-port 0 --broker mqtt://HOST:${port}\\)$`));
  });

  it("a port out of range, an address the host does not have", async () => {
    oneLine(await run("collector", collectorArgs("--http-port", "65536")), "--http-port: 65536 must be between 0 and 65535");
    oneLine(await run("collector", collectorArgs("--http-host", "192.0.2.1", "--insecure")), "HTTP address 192.0.2.1:0: this host has no such address (--http-port)");
  });

  it("a data folder another collector holds", async () => {
    const held = join(dir, "held");
    const first = Bun.spawn([process.execPath, PROGRAMS.collector, "--data-dir", held, "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-port", "0"], { stderr: "pipe", stdout: "ignore" });
    try {
      await readUntil(first.stderr, (t) => t.includes("collector ready"), "the first collector was ready");
      oneLine(await run("collector", ["--data-dir", held, "--http-host", "127.0.0.1", "--http-port", "0", "--mqtt-port", "0"]), `--data-dir ${held} is in use by another collector process (stop it first, or choose another --data-dir)`);
    } finally {
      first.kill("SIGKILL");
      await first.exited;
    }
  });

  it("a certificate or key that is not one", async () => {
    const junk = join(dir, "junk.pem");
    writeFileSync(junk, "-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n");
    oneLine(await run("collector", collectorArgs("--tls-cert", junk, "--tls-key", junk)), new RegExp(`^error: --tls-cert: ${junk} is not a PEM certificate: `));
  });

  it("a broker URL that is not one", async () => {
    oneLine(await run("collector", collectorArgs("--mqtt-port", "0", "--broker", "http://x")), '--broker: unsupported broker URL scheme "http" (use mqtt:// or mqtts://)');
  });
});

describe("agent: ports and identity", () => {
  it("a taken --listen port, a port out of range, no tenant", async () => {
    oneLine(await run("agent", [...agentArgs(), "--listen", `127.0.0.1:${port}`]), `the local write API's address 127.0.0.1:${port} is already in use: choose another with --listen`);
    oneLine(await run("agent", [...agentArgs(), "--listen", "127.0.0.1:70000"]), "--listen: port 70000 must be between 0 and 65535");
    oneLine(await run("agent", ["--data-dir", join(dir, "a2")]), "--tenant is required");
  });

  it("a CA file that is no certificate, a key that is not the certificate's", async () => {
    const junk = join(dir, "agent-junk.pem");
    writeFileSync(junk, "hello\n");
    oneLine(await run("agent", [...agentArgs(), "--broker", "mqtts://127.0.0.1:1", "--ca-file", junk]), new RegExp(`^error: --ca-file: ${junk} is not a PEM certificate: `));
    const [a, b] = ["a", "b"].map((n) => {
      const key = join(dir, `${n}.key`);
      const crt = join(dir, `${n}.crt`);
      const r = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", crt, "-days", "1", "-subj", `/CN=${n}`], { stderr: "pipe" });
      expect(r.exitCode, r.stderr.toString()).toBe(0);
      return { key, crt };
    });
    oneLine(await run("agent", [...agentArgs(), "--broker", "mqtts://127.0.0.1:1", "--cert-file", a!.crt, "--key-file", b!.key]), `--key-file: ${b!.key} is not the key of the certificate in ${a!.crt}`);
  });

  it("a buffer that belongs to another tenant", async () => {
    const d = join(dir, "owned");
    const first = await run("agent", ["--tenant", "t1", "--feed", "f", "--data-dir", d, "--listen", "", "--broker", "mqtt://127.0.0.1:1", "--shutdown-timeout", "1s", "--check-config"]);
    expect(first.code).toBe(0);
    // Own the buffer: a short real start, stopped at once.
    const owner = Bun.spawn([process.execPath, PROGRAMS.agent, "--tenant", "t1", "--feed", "f", "--data-dir", d, "--listen", "", "--broker", "mqtt://127.0.0.1:1", "--no-host-metrics"], { stderr: "pipe" });
    await readUntil(owner.stderr, (t) => t.includes("agent started"), "the owning agent started");
    owner.kill("SIGTERM");
    await owner.exited;
    oneLine(await run("agent", ["--tenant", "t2", "--feed", "f", "--data-dir", d, "--listen", "", "--broker", "mqtt://127.0.0.1:1"]), /^error: the buffer belongs to tenant "t1", feed "f"/);
  });
});
