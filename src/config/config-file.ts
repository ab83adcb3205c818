import { readFileSync } from "node:fs";
import { suggestion } from "./closest.ts";
import { OptionError } from "./option-error.ts";

export interface ConfigFile {
  /** Option name → raw TOML value and where it was written (for error messages). */
  values: Map<string, { value: unknown; where: string }>;
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads the TOML file: keys at the top level and in the program's section are options (kebab
 * or snake case; the section wins); the sections of the other programs are left to them.
 * An unknown key or section is an error naming the closest valid one.
 */
export function readConfigFile(path: string, scope: { names: ReadonlySet<string>; section?: string; otherSections?: readonly string[] }): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : (e as Error).message;
    throw new OptionError(`cannot read config file ${path}: ${why}`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = Bun.TOML.parse(text) as Record<string, unknown>;
  } catch (e) {
    const m = /^(?:TOML Parse error: )?(.*)$/s.exec((e as Error).message)?.[1] ?? String(e);
    throw new OptionError(`config file ${path} is not valid TOML: ${m.split("\n")[0]}`);
  }
  const { names, section } = scope;
  const sections = new Set([...(section ? [section] : []), ...(scope.otherSections ?? [])]);
  const values = new Map<string, { value: unknown; where: string }>();

  const take = (table: Record<string, unknown>, scope: string) => {
    for (const [key, value] of Object.entries(table)) {
      const name = key.replace(/_/g, "-");
      const where = `${path}: ${scope ? `[${scope}] ` : ""}${key}`;
      if (!names.has(name)) {
        if (!scope && isTable(value)) {
          const hint = suggestion(key, sections, (s) => `[${s}]`);
          throw new OptionError(`${path}: unknown section [${key}]${hint ? ` (${hint})` : ""}`);
        }
        throw new OptionError(`${where}: unknown key (${suggestion(name, names)})`);
      }
      values.set(name, { value, where });
    }
  };
  const top: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (sections.has(key)) {
      if (!isTable(value)) throw new OptionError(`${path}: ${key} must be a section ([${key}]), not a value`);
    } else top[key] = value;
  }
  take(top, "");
  if (section && isTable(doc[section])) take(doc[section] as Record<string, unknown>, section);
  return { values };
}
