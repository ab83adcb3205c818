import { field } from "./number.ts";

/** Parser for /proc/uptime (proc(5)): seconds since boot, and idle seconds summed over CPUs. */
export interface Uptime {
  uptimeSeconds: number;
  idleSeconds: number;
}

export function parseUptime(text: string): Uptime | undefined {
  const [up, idle] = text.trim().split(/\s+/);
  const out = { uptimeSeconds: field(up), idleSeconds: field(idle) };
  return Number.isFinite(out.uptimeSeconds) && Number.isFinite(out.idleSeconds) ? out : undefined;
}
