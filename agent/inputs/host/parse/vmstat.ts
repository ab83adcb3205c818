import { field } from "./number.ts";

/** Parser for /proc/vmstat: `name value` lines (counters and gauges of the VM subsystem). */
export function parseVmstat(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const space = line.indexOf(" ");
    if (space <= 0) continue;
    const n = field(line.slice(space + 1));
    if (Number.isFinite(n)) out.set(line.slice(0, space), n);
  }
  return out;
}
