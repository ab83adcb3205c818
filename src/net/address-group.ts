import { isIP } from "node:net";
import { isLoopbackHost } from "./loopback.ts";

/**
 * The key under which limits count one party's addresses. All of loopback is one party: anyone
 * on the machine can send from any of 127.0.0.0/8, so counting per address would let a local
 * user multiply a limit by 16 million. An IPv6 address counts by its /64 (what one host or one
 * network is usually given); an IPv4 address by itself.
 */
export function addressGroup(address: string): string {
  const a = address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
  if (isLoopbackHost(a)) return "loopback";
  if (isIP(a) !== 6) return a;
  return `${expandIpv6(a).slice(0, 4).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, as hex without leading zeros. */
function expandIpv6(a: string): string[] {
  const [head, tail] = a.split("%")[0]!.split("::") as [string, string | undefined];
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const fill = tail === undefined ? [] : Array(Math.max(0, 8 - left.length - right.length)).fill("0");
  return [...left, ...fill, ...right].map((g) => (g.includes(".") ? g : g.replace(/^0+(?=.)/, "").toLowerCase()));
}
