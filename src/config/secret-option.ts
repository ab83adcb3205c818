import { readFileSync, statSync } from "node:fs";
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

/** The option that accepts a secret file other users can read, with a warning instead of refusing it. */
export const ALLOW_OPEN_SECRET_FILES = "allow-open-secret-files";

/**
 * Why a secret file is too open, as ssh judges a private key: anyone on the machine can read it,
 * or it is the user's own and its group or others have any access. A file of root's that a
 * service's group reads (0640 root:outpost, as the packages lay out) is fine.
 */
export function secretFileOpenness(path: string): string | undefined {
  const st = statSync(path);
  const mode = (st.mode & 0o777).toString(8).padStart(3, "0");
  if (st.mode & 0o004) return `${path} can be read by every user of this machine (mode ${mode})`;
  if (st.uid === process.getuid?.() && st.mode & 0o077) return `${path} is open to its group or other users (mode ${mode})`;
  return undefined;
}

/** With --allow-open-secret-files: the secret files named by `names` (NAME-file options) that are too open, for the program's warnings. */
export function openSecretFiles(values: OptionValues, names: readonly string[]): string[] {
  if (values[ALLOW_OPEN_SECRET_FILES] !== true) return [];
  return names.flatMap((name) => {
    const file = values[`${name}-file`];
    if (file === undefined || String(file).trim() === "") return [];
    try {
      const why = secretFileOpenness(String(file));
      return why ? [`--${name}-file: ${why}`] : [];
    } catch {
      return [];
    }
  });
}

/**
 * The secret's value: the file's first line when `NAME-file` is set, else the option; undefined
 * when neither. A file other users can read is refused (one line saying how to fix it), unless
 * --allow-open-secret-files, when the program warns instead (openSecretFiles).
 */
export function readSecretOption(values: OptionValues, name: string): string | undefined {
  const file = values[`${name}-file`];
  if (file !== undefined && String(file).trim() !== "") {
    let text: string;
    try {
      const why = secretFileOpenness(String(file));
      if (why && values[ALLOW_OPEN_SECRET_FILES] !== true) {
        throw new OptionError(`--${name}-file: ${why}: run chmod 600 ${file} (or pass --${ALLOW_OPEN_SECRET_FILES} to use it anyway, with a warning)`);
      }
      text = readFileSync(String(file), "utf8");
    } catch (e) {
      if (e instanceof OptionError) throw e;
      throw new OptionError(`--${name}-file: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const secret = text.split(/\r?\n/)[0] ?? "";
    if (secret === "") throw new OptionError(`--${name}-file: ${file} is empty; its first line is the ${name}`);
    return secret;
  }
  const v = values[name];
  return v === undefined || String(v) === "" ? undefined : String(v);
}
