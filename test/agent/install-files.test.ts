import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { AGENT_ENV_PREFIX, agentOptions } from "../../agent/config.ts";
import { parseOptions } from "../../src/config/options.ts";

const ROOT = join(import.meta.dirname, "../..");
const EXAMPLE = join(ROOT, "deploy/agent.example.toml");

describe("install files", () => {
  test("the example configuration uses only real options and parses to the values it shows", () => {
    const toml = Bun.TOML.parse(readFileSync(EXAMPLE, "utf8")) as { agent: Record<string, unknown> };
    const names = new Set(agentOptions.map((o) => o.name));
    expect(Object.keys(toml.agent).filter((k) => !names.has(k))).toEqual([]);
    const { values, origin } = parseOptions(agentOptions, ["--config", EXAMPLE], {}, AGENT_ENV_PREFIX, "agent");
    expect(values).toMatchObject({
      broker: "mqtt://collector.example.net:1883",
      tenant: "acme",
      "data-dir": "/var/lib/outpost-agent",
      "buffer-max-bytes": 256 * 1024 ** 2,
      "host-interval": 10_000,
      "host-metrics": true,
    });
    expect(values["host-exclude"]).toContain("cpu_time_ms_total:cpu*");
    expect(origin.tenant).toBe("file");
  });

  test("the systemd unit starts the installed binary with a configuration file and keeps its state", () => {
    const unit = readFileSync(join(ROOT, "deploy/outpost-agent.service"), "utf8");
    expect(unit).toMatch(/^ExecStart=\/usr\/local\/bin\/outpost-agent --config \S+$/m);
    expect(unit).toMatch(/^StateDirectory=outpost-agent$/m);
    expect(unit).toMatch(/^Environment=OUTPOST_AGENT_DATA_DIR=\/var\/lib\/outpost-agent$/m);
  });

  test("build:agent compiles agent/main.ts into one file without autoloading .env or bunfig", () => {
    const script = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts["build:agent"];
    expect(script).toMatch(/^bun build --compile .*agent\/main\.ts --outfile dist\/outpost-agent$/);
    expect(script).toContain("--no-compile-autoload-dotenv");
    expect(script).toContain("--no-compile-autoload-bunfig");
  });

  test("the compiled binary runs on its own and explains every option", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-bin-"));
    try {
      const script = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts["build:agent"]!;
      const args = script.replace(/^bun /, "").replace("dist/outpost-agent", join(dir, "outpost-agent")).split(" ");
      const build = Bun.spawn([process.execPath, ...args], { cwd: ROOT, stdout: "ignore", stderr: "pipe" });
      expect(await build.exited, await new Response(build.stderr).text()).toBe(0);
      // Started from an empty folder, with no node_modules anywhere near it.
      const run = Bun.spawn([join(dir, "outpost-agent"), "--help"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
      const out = await new Response(run.stdout).text();
      expect(await run.exited).toBe(0);
      for (const o of agentOptions) expect(out).toContain(`--${o.name}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
