/**
 * Command-line options shared by both programs. Precedence: flags, then environment
 * variables, then an optional TOML file, then defaults. `--help` text is generated from the
 * same table, so every option is documented where it is declared.
 */
export type OptionKind = "string" | "int" | "boolean" | "duration" | "size" | "list";

export interface OptionSpec {
  /** kebab-case flag name without dashes, e.g. "http-port"; also the TOML key. */
  name: string;
  kind: OptionKind;
  help: string;
  default?: string | number | boolean | string[];
  /** Environment variable; defaults to PREFIX_NAME_IN_UPPER_SNAKE. */
  env?: string;
}

export type OptionValues = Record<string, string | number | boolean | string[] | undefined>;

export class OptionError extends Error {}

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, mn: 60_000, h: 3_600_000, d: 86_400_000 };
const sizeUnits: Record<string, number> = { b: 1, kb: 1024, k: 1024, mb: 1024 ** 2, m: 1024 ** 2, gb: 1024 ** 3, g: 1024 ** 3 };

/** "10s", "500ms", "2h" or a bare number of milliseconds → milliseconds. */
export function parseDurationOption(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|mn|h|d)?$/.exec(v.trim());
  if (!m) throw new OptionError(`invalid duration "${v}" (use e.g. 500ms, 10s, 5m, 2h, 1d)`);
  return Math.round(Number(m[1]) * (durationUnits[m[2] ?? "ms"] ?? 1));
}

/** "256MB", "64kb", or a bare number of bytes → bytes. */
export function parseSizeOption(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(v.trim());
  const unit = (m?.[2] ?? "").toLowerCase() || "b";
  if (!m || !(unit in sizeUnits)) throw new OptionError(`invalid size "${v}" (use e.g. 256MB, 64KB)`);
  return Math.round(Number(m[1]) * (sizeUnits[unit] ?? 1));
}

function envName(prefix: string, spec: OptionSpec): string {
  return spec.env ?? `${prefix}_${spec.name.replace(/-/g, "_").toUpperCase()}`;
}

function convert(spec: OptionSpec, raw: unknown, origin: string): OptionValues[string] {
  const fail = (why: string): never => {
    throw new OptionError(`${origin}: ${why}`);
  };
  switch (spec.kind) {
    case "string":
      return String(raw);
    case "int": {
      const n = typeof raw === "number" ? raw : Number(String(raw).trim());
      if (!Number.isInteger(n)) fail(`"${raw}" is not an integer`);
      return n;
    }
    case "boolean": {
      if (typeof raw === "boolean") return raw;
      const s = String(raw).toLowerCase();
      if (["1", "true", "yes", "on"].includes(s)) return true;
      if (["0", "false", "no", "off"].includes(s)) return false;
      return fail(`"${raw}" is not a boolean`);
    }
    case "duration":
      try {
        return typeof raw === "number" ? raw : parseDurationOption(String(raw));
      } catch (e) {
        return fail((e as Error).message);
      }
    case "size":
      try {
        return typeof raw === "number" ? raw : parseSizeOption(String(raw));
      } catch (e) {
        return fail((e as Error).message);
      }
    case "list":
      if (Array.isArray(raw)) return raw.map(String);
      return String(raw)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
  }
}

export interface ParsedOptions {
  values: OptionValues;
  help: boolean;
  /** Which source set each option: flag, env, file or default. */
  origin: Record<string, "flag" | "env" | "file" | "default">;
}

/**
 * Parses argv (without the program name). `--config FILE` (or PREFIX_CONFIG) names a TOML
 * file whose keys are option names (kebab or snake case), optionally under a `[section]`
 * equal to `section`.
 */
export function parseOptions(
  specs: OptionSpec[],
  argv: string[],
  env: Record<string, string | undefined>,
  envPrefix: string,
  section?: string,
): ParsedOptions {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const flags = new Map<string, string | boolean>();
  let configPath: string | undefined = env[`${envPrefix}_CONFIG`];
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    if (!arg.startsWith("--")) throw new OptionError(`unexpected argument "${arg}" (see --help)`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    if (name === "config") {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new OptionError("--config needs a file path");
      configPath = v;
      continue;
    }
    const negated = name.startsWith("no-") && byName.get(name.slice(3))?.kind === "boolean";
    const spec = byName.get(negated ? name.slice(3) : name);
    if (!spec) throw new OptionError(`unknown option --${name} (see --help)`);
    if (spec.kind === "boolean" && inline === undefined) {
      const next = argv[i + 1];
      if (!negated && next !== undefined && /^(true|false|yes|no|on|off|1|0)$/i.test(next)) {
        flags.set(spec.name, next);
        i++;
      } else flags.set(spec.name, !negated);
      continue;
    }
    const v = inline ?? argv[++i];
    if (v === undefined) throw new OptionError(`--${name} needs a value`);
    flags.set(spec.name, v);
  }

  let file: Record<string, unknown> = {};
  if (configPath) {
    let text: string;
    try {
      text = require("node:fs").readFileSync(configPath, "utf8");
    } catch (e) {
      throw new OptionError(`cannot read config file ${configPath}: ${(e as Error).message}`);
    }
    try {
      const parsed = Bun.TOML.parse(text) as Record<string, unknown>;
      const scoped = section && typeof parsed[section] === "object" ? (parsed[section] as Record<string, unknown>) : {};
      file = { ...parsed, ...scoped };
    } catch (e) {
      throw new OptionError(`config file ${configPath} is not valid TOML: ${(e as Error).message}`);
    }
  }

  const values: OptionValues = {};
  const origin: ParsedOptions["origin"] = {};
  for (const spec of specs) {
    const snake = spec.name.replace(/-/g, "_");
    const ev = env[envName(envPrefix, spec)];
    if (flags.has(spec.name)) {
      values[spec.name] = convert(spec, flags.get(spec.name), `--${spec.name}`);
      origin[spec.name] = "flag";
    } else if (ev !== undefined && ev !== "") {
      values[spec.name] = convert(spec, ev, envName(envPrefix, spec));
      origin[spec.name] = "env";
    } else if (file[spec.name] !== undefined || file[snake] !== undefined) {
      values[spec.name] = convert(spec, file[spec.name] ?? file[snake], `${configPath}: ${spec.name}`);
      origin[spec.name] = "file";
    } else {
      values[spec.name] = spec.default === undefined ? undefined : convert(spec, spec.default, `default of ${spec.name}`);
      origin[spec.name] = "default";
    }
  }
  return { values, help, origin };
}

export function formatHelp(usage: string, specs: OptionSpec[], envPrefix: string): string {
  const lines = [usage, "", "Options (flag, then environment variable, then TOML file key; flags win):", ""];
  const all: OptionSpec[] = [
    { name: "config", kind: "string", help: "TOML file with any of the options below as keys", env: `${envPrefix}_CONFIG` },
    ...specs,
  ];
  for (const s of all) {
    const arg = s.kind === "boolean" ? "" : ` <${s.kind}>`;
    const def = s.default === undefined || (Array.isArray(s.default) && s.default.length === 0) ? "" : ` (default: ${Array.isArray(s.default) ? s.default.join(",") : s.default})`;
    lines.push(`  --${s.name}${arg}`);
    lines.push(`      ${s.help}${def}`);
    lines.push(`      env ${envName(envPrefix, s)}`);
  }
  lines.push("  --help", "      print this help and exit");
  return `${lines.join("\n")}\n`;
}
