import type { Readable } from "node:stream";

/**
 * Bun's Readable#read() with no size returns only the first buffered chunk (Node returns all).
 * aedes reads with read(null), so an MQTT packet split across chunks would stall the
 * connection (research/toolchain.md §2). Asking for everything buffered restores Node's behaviour.
 */
export function fixRead<T extends Readable>(s: T): T {
  if (!process.versions.bun) return s;
  const orig = s.read.bind(s);
  s.read = (n?: number) => ((n === undefined || n === null) && s.readableLength > 0 && !s.readableObjectMode ? orig(s.readableLength) : orig(n));
  return s;
}
