import { isIP } from "node:net";

/**
 * Whether binding `host` keeps a server on this machine: localhost, 127.0.0.0/8, ::1 (also
 * IPv4-mapped). Any other name could resolve to a reachable address, so it counts as exposed.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost") return true;
  const v4 = h.startsWith("::ffff:") ? h.slice(7) : h;
  if (isIP(v4) === 4) return v4.startsWith("127.");
  return isIP(h) === 6 && /^(0{0,4}:){7}0{0,3}1$|^::1$/.test(h);
}
