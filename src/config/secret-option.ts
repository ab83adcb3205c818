import { readFileSync } from "node:fs";
import { OptionError, type OptionSpec, type OptionValues } from "./options.ts";

/**
 * A secret option and its `NAME-file` companion: the secret itself is refused as a flag (ps
 * would show it), so it comes from the environment or the TOML file, or is read from a file
 * whose path may be a flag.
 */
export function secretOptions(name: string, help: string): OptionSpec[] {
  return [
    { name, kind: "string", secret: true, help },
    { name: `${name}-file`, kind: "string", help: `file holding the ${name} (one line; takes precedence over ${name})` },
  ];
}

/** The secret's value: the file's first line when `NAME-file` is set, else the option; undefined when neither. */
export function readSecretOption(values: OptionValues, name: string): string | undefined {
  const file = values[`${name}-file`];
  if (file !== undefined && String(file).trim() !== "") {
    let text: string;
    try {
      text = readFileSync(String(file), "utf8");
    } catch (e) {
      throw new OptionError(`--${name}-file: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const secret = text.split(/\r?\n/)[0] ?? "";
    if (secret === "") throw new OptionError(`--${name}-file: ${file} is empty; its first line is the ${name}`);
    return secret;
  }
  const v = values[name];
  return v === undefined || String(v) === "" ? undefined : String(v);
}
