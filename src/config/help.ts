import { describeValue, envName, type OptionOrigin, type OptionSpec, type OptionValues } from "./options.ts";

export interface CommandSummary {
  name: string;
  summary: string;
}

function argOf(s: OptionSpec): string {
  if (s.kind === "boolean") return "";
  if (s.choices) return ` <${s.choices.join("|")}>`;
  return ` <${s.kind}>`;
}

function defaultOf(s: OptionSpec): string {
  if (s.default === undefined || (Array.isArray(s.default) && s.default.length === 0)) return "";
  return ` (default: ${Array.isArray(s.default) ? s.default.join(",") : s.default})`;
}

function rangeOf(s: OptionSpec): string {
  if (s.min === undefined && s.max === undefined) return "";
  if (s.kind === "int") return ` [${s.min ?? ""}..${s.max ?? ""}]`;
  return "";
}

/** `--help`: usage, commands, then every option with its variable and default. */
export function formatHelp(usage: string, specs: readonly OptionSpec[], envPrefix: string, commands: readonly CommandSummary[] = []): string {
  const lines = [usage, ""];
  if (commands.length > 0) {
    lines.push("Commands (without one, the program runs; each has its own --help):", "");
    for (const c of commands) lines.push(`  ${c.name}`, `      ${c.summary}`);
    lines.push("");
  }
  lines.push("Options (flag, then environment variable, then TOML file key; flags win):", "");
  const all: OptionSpec[] = [{ name: "config", kind: "string", help: "TOML file with any of the options below as keys", env: `${envPrefix}_CONFIG` }, ...specs];
  for (const s of all) {
    if (s.retired) continue;
    // A secret is no flag: ps would show it to every user of the machine.
    const head = s.secret ? `  ${s.name} (secret: environment or --config file only)` : `  --${s.name}${argOf(s)}`;
    lines.push(head, `      ${s.help}${rangeOf(s)}${defaultOf(s)}`, `      env ${envName(envPrefix, s)}`);
  }
  lines.push(
    "  --check-config",
    "      check the options and configuration file, print the configuration in effect and exit (2 when wrong)",
    "  --version",
    "      print the version and build, and exit",
    "  --help",
    "      print this help and exit",
    "",
    "Durations need a unit (500ms, 10s, 5m, 2h, 1d) and sizes too (64KiB, 256MiB; KB, MB, GB are read as the same binary units); only 0 goes without.",
  );
  return `${lines.join("\n")}\n`;
}

/** `--check-config`: every option, its value in effect and where it came from. */
export function formatConfig(specs: readonly OptionSpec[], values: OptionValues, origin: Record<string, OptionOrigin>, configPath?: string): string {
  const width = Math.max(...specs.map((s) => s.name.length));
  const lines = [`configuration OK${configPath ? ` (file ${configPath})` : ""}`];
  for (const s of specs) if (!s.retired) lines.push(`  ${s.name.padEnd(width)}  ${describeValue(s, values[s.name])}  [${origin[s.name] ?? "default"}]`);
  return `${lines.join("\n")}\n`;
}
