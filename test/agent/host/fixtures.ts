import { readFileSync } from "node:fs";
import { join } from "node:path";
import { procFiles } from "../../../agent/inputs/host/proc-files.ts";

export const FIXTURES = join(import.meta.dirname, "../../fixtures/procfs");
/** /proc captured on the development VM (Debian 12, 2 vCPUs), twice, 3 s apart. */
export const VM_T0 = join(FIXTURES, "debian12-vm-t0");
export const VM_T1 = join(FIXTURES, "debian12-vm-t1");

export const fixture = (...path: string[]): string => readFileSync(join(FIXTURES, ...path), "utf8");
export const vmFiles = (root = VM_T0) => procFiles(root);

/** The whitespace-separated fields of the first line of `text` that starts with `prefix`. */
export function fieldsOf(text: string, prefix: string): string[] {
  const line = text.split("\n").find((l) => l.trimStart().startsWith(prefix));
  if (line === undefined) throw new Error(`no line starting with ${prefix}`);
  return line.trim().split(/\s+/);
}
