import { field } from "./number.ts";

/** Parser for /proc/meminfo (proc(5)): `Name:   value kB` lines, values returned in bytes. */
export function parseMeminfo(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const [value, unit] = line.slice(colon + 1).trim().split(/\s+/);
    const n = field(value);
    if (!Number.isFinite(n)) continue;
    // The kernel writes "kB" meaning KiB; counts such as HugePages_Total have no unit.
    out.set(line.slice(0, colon), unit === "kB" ? n * 1024 : n);
  }
  return out;
}
