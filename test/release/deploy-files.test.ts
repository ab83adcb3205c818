/**
 * The files the packages install, checked without building: configurations that parse with
 * the programs' own schema, hardened systemd units (exposure by `systemd-analyze security`),
 * maintainer scripts that parse, and runtimes pinned consistently.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_ENV_PREFIX, agentOptions } from "../../agent/config.ts";
import { collectorProgram } from "../../collector/config.ts";
import { parseOptions } from "../../src/config/options.ts";
import { programOptions, programSource } from "../../src/config/run-program.ts";
import { pinOf, TARGETS } from "../../deploy/release/runtimes.ts";
import { ROOT } from "../helpers/program.ts";

const agentProgram = { name: "outpost-agent", options: agentOptions, envPrefix: AGENT_ENV_PREFIX, section: "agent", otherSections: ["collector"], shutdownTimeout: "10s" };

/** The overall exposure `systemd-analyze security --offline=true` gives a unit file. */
function exposure(unitFile: string): number {
  const exe = Bun.which("systemd-analyze");
  if (!exe) throw new Error("systemd-analyze is not installed (Debian package systemd; .ci/run installs it)");
  const r = Bun.spawnSync([exe, "security", "--offline=true", "--no-pager", unitFile], { cwd: join(unitFile, ".."), stdout: "pipe", stderr: "pipe" });
  const m = /Overall exposure level for \S+: (\d+\.\d+)/.exec(r.stdout.toString() + r.stderr.toString());
  if (!m) throw new Error(`no exposure level for ${unitFile}: ${r.stderr.toString()}`);
  return Number(m[1]);
}

describe("configuration files", () => {
  it("the agent's: only real options, the values it shows, and a tenant left to set", () => {
    const f = join(ROOT, "deploy/config/agent.toml");
    const specs = programOptions(agentProgram);
    const parsed = parseOptions(programSource(agentProgram, specs), ["--config", f], {});
    expect(parsed.values).toMatchObject({ "data-dir": "/var/lib/outpost/agent", "buffer-max-bytes": 256 * 1024 ** 2, "host-interval": 10_000, listen: "127.0.0.1:8181", "log-format": "text" });
    expect(parsed.values["host-exclude"]).toContain("cpu_time_ms_total:cpu*");
    // Until the tenant is set, the agent refuses to start (exit 2, which systemd does not restart).
    expect(parsed.values.tenant).toBeUndefined();
    expect(readFileSync(f, "utf8")).toMatch(/^# tenant = "acme"$/m);
  });

  it("the collector's: only real options, explicit ports, the packaged data folder", () => {
    const f = join(ROOT, "deploy/config/collector.toml");
    const specs = programOptions(collectorProgram);
    const parsed = parseOptions(programSource(collectorProgram, specs), ["--config", f], {});
    expect(parsed.values).toMatchObject({ "data-dir": "/var/lib/outpost/collector", "http-port": 8080, "mqtt-port": 1883, synchronous: "FULL" });
    // Given in the file, so a taken port stops it instead of moving it (docs/operations.md).
    expect(parsed.origin["http-port"]).toBe("file");
    expect(parsed.origin["mqtt-port"]).toBe("file");
  });
});

describe.each(["agent", "collector"])("the %s's systemd unit", (program) => {
  const unit = join(ROOT, `deploy/systemd/outpost-${program}.service`);
  const text = readFileSync(unit, "utf8");

  it("runs the packaged binary as the system user with its configuration and state directory", () => {
    expect(text).toMatch(new RegExp(`^ExecStart=/usr/bin/outpost-${program} --config /etc/outpost/${program}\\.toml$`, "m"));
    expect(text).toMatch(/^User=outpost$/m);
    expect(text).toMatch(new RegExp(`^StateDirectory=outpost/${program}$`, "m"));
    expect(text).toMatch(/^ExecReload=\/bin\/kill -HUP \$MAINPID$/m);
    expect(text).toMatch(/^RestartPreventExitStatus=2$/m);
  });

  it("stops within its own --shutdown-timeout before systemd's TimeoutStopSec", () => {
    const stopSec = Number(/^TimeoutStopSec=(\d+)$/m.exec(text)?.[1]);
    const own = program === "agent" ? 10 : Number(/(\d+)s/.exec(collectorProgram.shutdownTimeout)?.[1]);
    expect(stopSec).toBeGreaterThan(own);
  });

  it("is hardened to an exposure of 2.5 or less", () => {
    const level = exposure(unit);
    expect(level).toBeLessThanOrEqual(2.5);
    // The comment in the unit says the figure.
    expect(text).toContain(`exposure ${level.toFixed(1)} by`);
  });
});

describe("maintainer scripts and pins", () => {
  it("the maintainer scripts are valid sh", () => {
    for (const s of ["postinst", "prerm", "postrm"]) {
      const r = Bun.spawnSync(["sh", "-n", join(ROOT, "deploy/debian", s)], { stderr: "pipe" });
      expect(r.exitCode, `${s}: ${r.stderr.toString()}`).toBe(0);
    }
  });

  it("the runtimes are pinned to the version of the bun that builds, with their integrity locked", () => {
    for (const t of Object.values(TARGETS)) expect(pinOf(t.pkg)).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+$/), integrity: expect.stringMatching(/^sha512-/) });
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
    expect(pkg.scripts.release).toBe("bun deploy/release/main.ts");
    expect(pkg.scripts.postinstall).toContain("deploy/release/runtimes.ts");
  });
});
