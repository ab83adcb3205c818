import { field } from "./number.ts";

/** Parser for /proc/net/dev (proc(5)): per-interface receive and transmit counters. */
export interface InterfaceCounters {
  bytes: number;
  packets: number;
  errors: number;
  dropped: number;
}

export interface NetDev {
  name: string;
  receive: InterfaceCounters;
  transmit: InterfaceCounters;
}

const counters = (f: string[], at: number): InterfaceCounters => ({
  bytes: field(f[at]),
  packets: field(f[at + 1]),
  errors: field(f[at + 2]),
  dropped: field(f[at + 3]),
});

export function parseNetDev(text: string): NetDev[] {
  const out: NetDev[] = [];
  for (const line of text.split("\n")) {
    // Interface names cannot contain ':'; a wide counter may follow the colon with no space.
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const f = line.slice(colon + 1).trim().split(/\s+/);
    // Receive: bytes packets errs drop fifo frame compressed multicast; transmit starts at column 8.
    if (!name || f.length < 12) continue;
    const dev = { name, receive: counters(f, 0), transmit: counters(f, 8) };
    if ([...Object.values(dev.receive), ...Object.values(dev.transmit)].every(Number.isFinite)) out.push(dev);
  }
  return out;
}
