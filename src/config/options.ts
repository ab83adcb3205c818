/**
 * The option schema shared by both programs. Every option is declared once, with its kind,
 * range and help; flags, environment variables and the TOML file are all checked against it.
 * Precedence: flags, then environment variables, then the TOML file, then defaults. Anything
 * the schema does not know (a flag, a variable with the program's prefix, a TOML key or
 * section) is an error naming the closest valid name: a typo must never fall back silently.
 */
import { suggestion } from "./closest.ts";
import { type ConfigFile, readConfigFile } from "./config-file.ts";
import { OptionError } from "./option-error.ts";

export { OptionError };

export type OptionKind = "string" | "int" | "boolean" | "duration" | "size" | "list" | "table";

export interface OptionSpec {
  /** kebab-case flag name without dashes, e.g. "http-port"; also the TOML key. */
  name: string;
  kind: OptionKind;
  help: string;
  default?: string | number | boolean | string[];
  /** Environment variable; defaults to PREFIX_NAME_IN_UPPER_SNAKE. */
  env?: string;
  /** Inclusive bounds of an int, a duration (ms) or a size (bytes). */
  min?: number;
  max?: number;
  /**
   * A duration whose value was a plain number before it took units: a number without one is read
   * in this unit (e.g. "d": `default-retention = 7` is 7 days), so older files keep working.
   */
  bareUnit?: "s" | "m" | "h" | "d";
  /** The values a string may take (matched without regard to case; the listed spelling is kept). */
  choices?: readonly string[];
  /**
   * A secret (a password, a token): refused as a flag, where every user of the machine would
   * read it in `ps`; it comes from the environment, the TOML file, or a NAME-file option
   * (secret-option.ts). --check-config prints "(set)" instead of the value.
   */
  secret?: boolean;
  /** An option that no longer exists: using it (flag, environment or file) fails with this advice; --help omits it. */
  retired?: string;
  /** Re-read on SIGHUP (the program registers what applies it; see run-program.ts). */
  reloadable?: boolean;
  /**
   * Kind "table": checks and converts the option's TOML table (or the JSON of a flag or
   * variable) into its value, throwing OptionError (a schema of src/config/table.ts).
   */
  table?: (raw: unknown, where: string) => TableValue;
}

/** The value of a "table" option: nested tables, lists and scalars, already checked. */
export type TableValue = { readonly [key: string]: unknown };

export type OptionValue = string | number | boolean | string[] | TableValue | undefined;
export type OptionValues = Record<string, OptionValue>;
export type OptionOrigin = "flag" | "env" | "file" | "default";

/** A TCP or UDP port; 0 asks the system for a free one. */
export const PORT_RANGE = { min: 0, max: 65535 } as const;

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, mn: 60_000, h: 3_600_000, d: 86_400_000 };
/**
 * Sizes are binary: KiB, MiB, GiB. KB, MB, GB (and K, M, G) are read as the same binary units,
 * as systemd and Docker read them, so that existing files keep their meaning; what the programs
 * print says KiB, MiB, GiB.
 */
const sizeUnits: Record<string, number> = { b: 1, kib: 1024, kb: 1024, k: 1024, mib: 1024 ** 2, mb: 1024 ** 2, m: 1024 ** 2, gib: 1024 ** 3, gb: 1024 ** 3, g: 1024 ** 3 };

/**
 * "10s", "500ms", "2h", "7d" → milliseconds. A unit is required (a bare 10 could mean 10 ms or
 * 10 s), unless the option names one for plain numbers (`bareUnit`); 0 may always go without.
 */
export function parseDurationOption(v: string, bareUnit?: OptionSpec["bareUnit"]): number {
  const s = v.trim();
  if (/^0+(\.0+)?$/.test(s)) return 0;
  if (/^\d+(\.\d+)?$/.test(s) && bareUnit) return Math.round(Number(s) * durationUnits[bareUnit]!);
  if (/^\d+(\.\d+)?$/.test(s)) throw new OptionError(`"${v}" needs a unit, e.g. "${s}s" (units: ms, s, m, h, d)`);
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|mn|h|d)$/.exec(s);
  if (!m) throw new OptionError(`invalid duration "${v}" (use e.g. 500ms, 10s, 5m, 2h, 1d)`);
  return Math.round(Number(m[1]) * (durationUnits[m[2]!] ?? 1));
}

/** "256MiB", "64KiB", "100B" → bytes. A unit is required; only 0 may go without one. */
export function parseSizeOption(v: string): number {
  const s = v.trim();
  if (/^0+(\.0+)?$/.test(s)) return 0;
  if (/^\d+(\.\d+)?$/.test(s)) throw new OptionError(`"${v}" needs a unit, e.g. "${s}MiB" (units: B, KiB, MiB, GiB)`);
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(s);
  const unit = (m?.[2] ?? "").toLowerCase();
  if (!m || !(unit in sizeUnits)) throw new OptionError(`invalid size "${v}" (use e.g. 256MiB, 64KiB)`);
  return Math.round(Number(m[1]) * (sizeUnits[unit] ?? 1));
}

export function envName(prefix: string, spec: OptionSpec): string {
  return spec.env ?? `${prefix}_${spec.name.replace(/-/g, "_").toUpperCase()}`;
}

/** A number of the largest unit that divides it exactly: 86400000 ms is "1d", 1048576 bytes "1MiB". */
function largestUnit(n: number, units: [string, number][]): string {
  const [name, size] = units.find(([, u]) => n !== 0 && n % u === 0) ?? units.at(-1)!;
  return `${n / size}${name}`;
}

export function formatBound(spec: OptionSpec, n: number): string {
  if (spec.kind === "duration") return largestUnit(n, [["d", 86_400_000], ["h", 3_600_000], ["m", 60_000], ["s", 1000], ["ms", 1]]);
  if (spec.kind === "size") return largestUnit(n, [["GiB", 1024 ** 3], ["MiB", 1024 ** 2], ["KiB", 1024], ["B", 1]]);
  return String(n);
}

function checkRange(spec: OptionSpec, n: number): string | undefined {
  const { min, max } = spec;
  if ((min === undefined || n >= min) && (max === undefined || n <= max)) return undefined;
  if (min !== undefined && max !== undefined) return `must be between ${formatBound(spec, min)} and ${formatBound(spec, max)}`;
  return min !== undefined ? `must be at least ${formatBound(spec, min)}` : `must be at most ${formatBound(spec, max!)}`;
}

/** Converts one raw value (a flag or variable string, or a TOML value) to the option's kind. */
export function convertOption(spec: OptionSpec, raw: unknown, where: string): OptionValue {
  const fail = (why: string): never => {
    throw new OptionError(`${where}: ${why}`);
  };
  if (spec.kind === "table") {
    let table = raw;
    if (typeof raw === "string") {
      // From a flag or a variable: the same structure as JSON.
      try {
        table = JSON.parse(raw);
      } catch {
        fail("expected a table, in JSON when given as a flag or environment variable");
      }
    }
    if (!spec.table) return fail("option has no table schema");
    return spec.table(table, where);
  }
  if (raw !== null && typeof raw === "object" && !(Array.isArray(raw) && spec.kind === "list")) fail(`expected a ${spec.kind === "list" ? "list" : "single value"}, got ${JSON.stringify(raw)}`);
  switch (spec.kind) {
    case "string": {
      const s = String(raw);
      if (!spec.choices) return s;
      const hit = spec.choices.find((c) => c.toLowerCase() === s.trim().toLowerCase());
      return hit ?? fail(`"${s}" is not one of ${spec.choices.join(", ")}`);
    }
    case "int": {
      const n = typeof raw === "number" ? raw : String(raw).trim() === "" ? Number.NaN : Number(String(raw).trim());
      if (!Number.isInteger(n)) fail(`"${raw}" is not an integer`);
      const bad = checkRange(spec, n);
      return bad ? fail(`${n} ${bad}`) : n;
    }
    case "boolean": {
      if (typeof raw === "boolean") return raw;
      const s = String(raw).toLowerCase();
      if (["1", "true", "yes", "on"].includes(s)) return true;
      if (["0", "false", "no", "off"].includes(s)) return false;
      return fail(`"${raw}" is not a boolean (true or false)`);
    }
    case "duration":
    case "size": {
      let n: number;
      try {
        n = spec.kind === "duration" ? parseDurationOption(String(raw), spec.bareUnit) : parseSizeOption(String(raw));
      } catch (e) {
        return fail((e as Error).message);
      }
      const bad = checkRange(spec, n);
      return bad ? fail(`"${raw}" ${bad}`) : n;
    }
    case "list":
      if (Array.isArray(raw)) return raw.map((x) => (typeof x === "object" ? fail(`list items must be strings, got ${JSON.stringify(x)}`) : String(x)));
      return String(raw)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
  }
}

/** Where a program's options come from: its schema, environment prefix and TOML section. */
export interface OptionSource {
  specs: readonly OptionSpec[];
  envPrefix: string;
  /** TOML section whose keys apply to this program (e.g. "agent"); top-level keys apply too. */
  section?: string;
  /** Sections of other programs that may share the file; this program leaves them alone. */
  otherSections?: readonly string[];
  /** Environment prefixes of other programs that start with this one's (OUTPOST_AGENT_ for OUTPOST_). */
  otherEnvPrefixes?: readonly string[];
}

/** Flags every program understands besides its options. */
export const BUILTIN_FLAGS = ["help", "version", "check-config", "config"] as const;

export interface ParsedOptions {
  values: OptionValues;
  /** Which source set each option. */
  origin: Record<string, OptionOrigin>;
  help: boolean;
  version: boolean;
  checkConfig: boolean;
  /** Arguments that are not options, in order (a subcommand's operands). */
  positionals: string[];
  /** The TOML file read, if any. */
  configPath?: string;
}

interface Flags {
  set: Map<string, string | boolean>;
  help: boolean;
  version: boolean;
  checkConfig: boolean;
  configPath?: string;
  positionals: string[];
}

function readFlags(byName: Map<string, OptionSpec>, argv: readonly string[], envPrefix: string): Flags {
  const f: Flags = { set: new Map(), help: false, version: false, checkConfig: false, positionals: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") f.help = true;
    else if (arg === "--version" || arg === "-V") f.version = true;
    else if (arg === "--check-config") f.checkConfig = true;
    else if (arg === "--") {
      f.positionals.push(...argv.slice(i + 1));
      break;
    } else if (!arg.startsWith("--")) {
      if (arg.startsWith("-") && arg.length > 1) throw new OptionError(`unknown option ${arg} (options start with --; see --help)`);
      f.positionals.push(arg);
    } else {
      const eq = arg.indexOf("=");
      const name = arg.slice(2, eq < 0 ? undefined : eq);
      const inline = eq < 0 ? undefined : arg.slice(eq + 1);
      if (name === "config") {
        const v = inline ?? argv[++i];
        if (v === undefined) throw new OptionError("--config needs a file path");
        f.configPath = v;
        continue;
      }
      const negated = name.startsWith("no-") && byName.get(name.slice(3))?.kind === "boolean";
      const spec = byName.get(negated ? name.slice(3) : name);
      if (!spec) {
        const hint = suggestion(name, [...[...byName.values()].filter((s) => !s.retired).map((s) => s.name), ...BUILTIN_FLAGS], (s) => `--${s}`);
        throw new OptionError(`unknown option --${name}${hint ? ` (${hint})` : ""}`);
      }
      if (spec.retired) throw new OptionError(`--${name} no longer exists: ${spec.retired}`);
      if (spec.secret) {
        throw new OptionError(
          `--${name} is not accepted on the command line, where every user of the machine can read it (ps): set ${envName(envPrefix, spec)}, put it in the --config file, or use --${name}-file`,
        );
      }
      if (spec.kind === "boolean" && inline === undefined) {
        const next = argv[i + 1];
        if (!negated && next !== undefined && /^(true|false|yes|no|on|off|1|0)$/i.test(next)) {
          f.set.set(spec.name, next);
          i++;
        } else f.set.set(spec.name, !negated);
        continue;
      }
      const v = inline ?? argv[++i];
      if (v === undefined) throw new OptionError(`--${name} needs a value`);
      f.set.set(spec.name, v);
    }
  }
  return f;
}

/** Rejects variables with the program's prefix that name no option (a typo would be ignored). */
function checkEnvNames(src: OptionSource, env: Record<string, string | undefined>): void {
  const known = new Set([`${src.envPrefix}_CONFIG`, ...src.specs.map((s) => envName(src.envPrefix, s))]);
  const prefix = `${src.envPrefix}_`;
  for (const name of Object.keys(env)) {
    if (!name.startsWith(prefix) || known.has(name)) continue;
    if (src.otherEnvPrefixes?.some((p) => name.startsWith(p))) continue;
    throw new OptionError(`unknown environment variable ${name} (${suggestion(name, known)})`);
  }
}

/**
 * Parses argv (without the program name), the environment and the TOML file named by
 * `--config` or PREFIX_CONFIG, and checks every value against the schema.
 */
export function parseOptions(src: OptionSource, argv: readonly string[], env: Record<string, string | undefined>): ParsedOptions {
  const byName = new Map(src.specs.map((s) => [s.name, s]));
  const flags = readFlags(byName, argv, src.envPrefix);
  checkEnvNames(src, env);
  const configPath = flags.configPath ?? (env[`${src.envPrefix}_CONFIG`] || undefined);
  const file: ConfigFile | undefined = configPath ? readConfigFile(configPath, { names: new Set(byName.keys()), section: src.section, otherSections: src.otherSections }) : undefined;

  const values: OptionValues = {};
  const origin: ParsedOptions["origin"] = {};
  for (const spec of src.specs) {
    const envVar = envName(src.envPrefix, spec);
    const ev = env[envVar];
    const fromFile = file?.values.get(spec.name);
    if (spec.retired && ((ev !== undefined && ev !== "") || fromFile)) throw new OptionError(`${spec.name} no longer exists: ${spec.retired}`);
    if (flags.set.has(spec.name)) {
      values[spec.name] = convertOption(spec, flags.set.get(spec.name), `--${spec.name}`);
      origin[spec.name] = "flag";
    } else if (ev !== undefined && ev !== "") {
      values[spec.name] = convertOption(spec, ev, envVar);
      origin[spec.name] = "env";
    } else if (fromFile) {
      values[spec.name] = convertOption(spec, fromFile.value, fromFile.where);
      origin[spec.name] = "file";
    } else {
      values[spec.name] = spec.default === undefined ? undefined : convertOption(spec, spec.default, `default of ${spec.name}`);
      origin[spec.name] = "default";
    }
  }
  return { values, origin, help: flags.help, version: flags.version, checkConfig: flags.checkConfig, positionals: flags.positionals, configPath };
}

/** The value as a person would write it, for --check-config (secrets hidden). */
export function describeValue(spec: OptionSpec, v: OptionValue): string {
  if (v === undefined) return "(not set)";
  if (spec.secret) return "(set)";
  if (Array.isArray(v)) return v.length === 0 ? "(empty)" : v.join(",");
  if (typeof v === "object") return JSON.stringify(v);
  if (typeof v === "number" && (spec.kind === "duration" || spec.kind === "size")) return formatBound(spec, v);
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}
