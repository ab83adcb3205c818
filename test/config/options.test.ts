import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { agentOptions } from "../../agent/config.ts";
import { collectorOptions, validateCollectorOptions } from "../../collector/config.ts";
import { suggestion } from "../../src/config/closest.ts";
import { formatConfig } from "../../src/config/help.ts";
import { OptionError, type OptionSource, parseDurationOption, parseOptions, parseSizeOption } from "../../src/config/options.ts";
import { programOptions } from "../../src/config/run-program.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-options-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const agent: OptionSource = {
  specs: programOptions({ options: agentOptions, shutdownTimeout: "10s" }),
  envPrefix: "OUTPOST_AGENT",
  section: "agent",
  otherSections: ["collector"],
};
const collector: OptionSource = {
  specs: programOptions({ options: collectorOptions, shutdownTimeout: "30s" }),
  envPrefix: "OUTPOST",
  section: "collector",
  otherSections: ["agent"],
  otherEnvPrefixes: ["OUTPOST_AGENT_"],
};

let files = 0;
function toml(text: string): string {
  const p = join(dir, `c${++files}.toml`);
  writeFileSync(p, text);
  return p;
}

/** The message of the OptionError `fn` throws (fails when it throws nothing or something else). */
function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(OptionError);
    return (e as Error).message;
  }
  throw new Error("expected an OptionError");
}

describe("flags", () => {
  it("an unknown flag names the closest valid one", () => {
    expect(refusal(() => parseOptions(collector, ["--htp-port", "1"], {}))).toBe("unknown option --htp-port (did you mean --http-port?)");
    expect(refusal(() => parseOptions(agent, ["--zzzzzzzzzzzz"], {}))).toMatch(/^unknown option --zzzzzzzzzzzz \(the closest valid name is --\S+\)$/);
    expect(refusal(() => parseOptions(agent, ["-x"], {}))).toMatch(/unknown option -x/);
  });

  it("values are converted and range-checked", () => {
    const { values } = parseOptions(collector, ["--http-port", "0", "--mqtt-port=65535", "--self-metrics-interval", "1m"], {});
    expect(values).toMatchObject({ "http-port": 0, "mqtt-port": 65535, "self-metrics-interval": 60_000 });
    expect(refusal(() => parseOptions(collector, ["--http-port", "65536"], {}))).toBe("--http-port: 65536 must be between 0 and 65535");
    expect(refusal(() => parseOptions(collector, ["--mqtt-port", "-1"], {}))).toBe("--mqtt-port: -1 must be between 0 and 65535");
    expect(refusal(() => parseOptions(collector, ["--http-port", "80a"], {}))).toBe('--http-port: "80a" is not an integer');
    expect(refusal(() => parseOptions(agent, ["--batch-points", "0"], {}))).toBe("--batch-points: 0 must be between 1 and 1000000");
    expect(refusal(() => parseOptions(agent, ["--buffer-max-bytes", "10KB"], {}))).toBe('--buffer-max-bytes: "10KB" must be between 1MiB and 1024GiB');
    expect(refusal(() => parseOptions(agent, ["--interval", "0"], {}))).toBe('--interval: "0" must be between 100ms and 1d');
  });

  it("enumerations accept any case and keep the listed spelling", () => {
    expect(parseOptions(collector, ["--synchronous", "normal", "--log-level", "DEBUG"], {}).values).toMatchObject({ synchronous: "NORMAL", "log-level": "debug" });
    expect(refusal(() => parseOptions(collector, ["--log-level", "verbose"], {}))).toBe('--log-level: "verbose" is not one of debug, info, warn, error, silent');
    expect(refusal(() => parseOptions(agent, ["--log-format", "xml"], {}))).toBe('--log-format: "xml" is not one of text, json');
  });

  it("booleans, negations and operands", () => {
    expect(parseOptions(agent, ["--no-inventory", "--host-metrics", "false"], {}).values).toMatchObject({ inventory: false, "host-metrics": false });
    expect(parseOptions(collector, ["backup-dir", "--http-port", "1"], {}).positionals).toEqual(["backup-dir"]);
    expect(refusal(() => parseOptions(agent, ["--inventory=maybe"], {}))).toBe('--inventory: "maybe" is not a boolean (true or false)');
  });
});

describe("durations and sizes need a unit", () => {
  it("in flags, variables and the file alike", () => {
    expect(refusal(() => parseOptions(agent, ["--host-interval", "10"], {}))).toBe('--host-interval: "10" needs a unit, e.g. "10s" (units: ms, s, m, h, d)');
    expect(refusal(() => parseOptions(agent, [], { OUTPOST_AGENT_INTERVAL: "5" }))).toMatch(/^OUTPOST_AGENT_INTERVAL: "5" needs a unit/);
    const f = toml('[agent]\nhost-interval = 10\n');
    expect(refusal(() => parseOptions(agent, ["--config", f], {}))).toBe(`${f}: [agent] host-interval: "10" needs a unit, e.g. "10s" (units: ms, s, m, h, d)`);
    expect(refusal(() => parseOptions(agent, ["--buffer-max-bytes", "268435456"], {}))).toMatch(/needs a unit, e.g. "268435456MiB" \(units: B, KiB, MiB, GiB\)/);
  });

  it("parses the units, and 0 needs none", () => {
    expect([parseDurationOption("500ms"), parseDurationOption("1.5s"), parseDurationOption("2m"), parseDurationOption("1h"), parseDurationOption("1d"), parseDurationOption("0")]).toEqual([
      500, 1500, 120_000, 3_600_000, 86_400_000, 0,
    ]);
    expect([parseSizeOption("64KB"), parseSizeOption("256MB"), parseSizeOption("1g"), parseSizeOption("100B"), parseSizeOption("0")]).toEqual([65536, 256 * 1024 ** 2, 1024 ** 3, 100, 0]);
    // What the programs print: binary units named as such; KB, MB, GB read as the same.
    expect([parseSizeOption("64KiB"), parseSizeOption("256MiB"), parseSizeOption("2GiB")]).toEqual([65536, 256 * 1024 ** 2, 2 * 1024 ** 3]);
    expect(() => parseDurationOption("10 parsecs")).toThrow(/invalid duration/);
    expect(() => parseSizeOption("12XB")).toThrow(/invalid size/);
  });
});

describe("the TOML file", () => {
  it("applies top-level keys and the program's section, kebab or snake case; the section wins", () => {
    const f = toml('log-level = "warn"\ndata_dir = "/top"\n[collector]\nhttp-port = 9100\ndata_dir = "/x"\n[agent]\ntenant = "acme"\n');
    const { values, origin } = parseOptions(collector, ["--config", f], {});
    expect(values).toMatchObject({ "log-level": "warn", "http-port": 9100, "data-dir": "/x" });
    expect(origin["http-port"]).toBe("file");
    // The agent's section belongs to the agent: the collector does not read it, nor refuse it.
    expect(parseOptions(agent, ["--config", f], {}).values).toMatchObject({ "log-level": "warn", "data-dir": "/top", tenant: "acme" });
  });

  it("an unknown key or section is an error naming the closest valid one", () => {
    const a = toml('[agent]\ntenant = "acme"\nbrokr = "mqtt://x:1883"\n');
    expect(refusal(() => parseOptions(agent, ["--config", a], {}))).toBe(`${a}: [agent] brokr: unknown key (did you mean "broker"?)`);
    const b = toml('[agnet]\ntenant = "acme"\n');
    expect(refusal(() => parseOptions(agent, ["--config", b], {}))).toBe(`${b}: unknown section [agnet] (did you mean [agent]?)`);
    const c = toml("htp-port = 1\n");
    expect(refusal(() => parseOptions(collector, ["--config", c], {}))).toBe(`${c}: htp-port: unknown key (did you mean "http-port"?)`);
    // A key of the other program at the top level is not this program's either.
    const d = toml('tenant = "acme"\n');
    expect(refusal(() => parseOptions(collector, ["--config", d], {}))).toMatch(/tenant: unknown key/);
    const e = toml('[agent.host]\ninclude = ["*"]\n');
    expect(refusal(() => parseOptions(agent, ["--config", e], {}))).toMatch(/\[agent\] host: unknown key/);
  });

  it("a value of the wrong shape, a missing file and broken TOML are one-line errors", () => {
    const f = toml('[agent]\ntenant = ["a", "b"]\n');
    expect(refusal(() => parseOptions(agent, ["--config", f], {}))).toMatch(/\[agent\] tenant: expected a single value/);
    expect(refusal(() => parseOptions(agent, ["--config", join(dir, "none.toml")], {}))).toBe(`cannot read config file ${join(dir, "none.toml")}: no such file`);
    const g = toml('[agent]\ntenant = \n');
    const msg = refusal(() => parseOptions(agent, ["--config", g], {}));
    expect(msg).toMatch(new RegExp(`^config file ${g} is not valid TOML: \\S`));
    expect(msg).not.toContain("\n");
  });
});

describe("environment variables", () => {
  it("a variable with the program's prefix must name an option", () => {
    expect(refusal(() => parseOptions(collector, [], { OUTPOST_HTTP_PROT: "1" }))).toBe('unknown environment variable OUTPOST_HTTP_PROT (did you mean "OUTPOST_HTTP_PORT"?)');
    expect(refusal(() => parseOptions(agent, [], { OUTPOST_AGENT_TENNANT: "a" }))).toMatch(/OUTPOST_AGENT_TENNANT \(did you mean "OUTPOST_AGENT_TENANT"\?\)/);
    // The agent's variables are not the collector's business; other variables are no one's.
    expect(parseOptions(collector, [], { OUTPOST_AGENT_TENANT: "a", PATH: "/bin", OUTPOSTX: "1" }).values["http-port"]).toBe(8080);
  });

  it("precedence: flags, then variables, then the file, then defaults", () => {
    const f = toml("[collector]\nhttp-port = 3\nmqtt-port = 3\nsmtp-port = 3\n");
    const { values, origin } = parseOptions(collector, ["--http-port", "1"], { OUTPOST_CONFIG: f, OUTPOST_HTTP_PORT: "2", OUTPOST_MQTT_PORT: "2" });
    expect([values["http-port"], values["mqtt-port"], values["smtp-port"], values["default-retention"]]).toEqual([1, 2, 3, 7 * 86_400_000]);
    expect([origin["http-port"], origin["mqtt-port"], origin["smtp-port"], origin["default-retention"]]).toEqual(["flag", "env", "file", "default"]);
  });
});

describe("--check-config output", () => {
  it("shows every value and its origin, never a secret", () => {
    const parsed = parseOptions(agent, ["--tenant", "acme"], { OUTPOST_AGENT_PASSWORD: "hunter2" });
    const out = formatConfig(agent.specs, parsed.values, parsed.origin);
    expect(out).toMatch(/^configuration OK\n/);
    expect(out).toMatch(/ tenant +"acme" +\[flag\]/);
    expect(out).toMatch(/ password +\(set\) +\[env\]/);
    expect(out).toMatch(/ buffer-max-bytes +256MiB +\[default\]/);
    expect(out).not.toContain("hunter2");
  });
});

describe("suggestions", () => {
  it("a near name is a likely typo; a far one is only the closest", () => {
    expect(suggestion("brokre", ["broker", "tenant"])).toBe('did you mean "broker"?');
    expect(suggestion("qqqqqqq", ["broker", "tenant"])).toMatch(/^the closest valid name is /);
  });
});

describe("every duration takes units (issue 25)", () => {
  const DAY = 86_400_000;
  it("default-retention: 7d, 365d; a number alone is days, as in older files; a part of a day is refused", () => {
    expect(parseOptions(collector, ["--default-retention", "7d"], {}).values["default-retention"]).toBe(7 * DAY);
    expect(parseOptions(collector, [], { OUTPOST_DEFAULT_RETENTION: "365d" }).values["default-retention"]).toBe(365 * DAY);
    expect(parseOptions(collector, ["--default-retention", "36500"], {}).values["default-retention"]).toBe(36_500 * DAY);
    const f = toml("[collector]\ndefault-retention = 30\n");
    expect(parseOptions(collector, ["--config", f], {}).values["default-retention"]).toBe(30 * DAY);
    expect(refusal(() => parseOptions(collector, ["--default-retention", "12h"], {}))).toBe('--default-retention: "12h" must be between 1d and 36500d');
    expect(() => validateCollectorOptions({ "default-retention": 36 * 3_600_000 })).toThrow("--default-retention must be whole days (e.g. 2d)");
  });

  it("no option of either program counts time in a plain number", () => {
    for (const o of [...agentOptions, ...collectorOptions]) {
      if (o.kind === "int") expect(o.help, o.name).not.toMatch(/\b(milliseconds|seconds|minutes|hours|days|weeks)\b/);
    }
  });
});
