import type { Socket } from "node:net";

/**
 * Follows the MQTT packets on a connection as aedes reads them and closes the connection as
 * soon as a fixed header announces a packet larger than `maxBytes`, before its body is
 * buffered: aedes has no limit of its own and would hold a packet of up to 256 MB in memory.
 * Wraps `read` (which aedes calls) rather than adding a listener, which would change how the
 * stream flows.
 */
export function guardPacketSize(sock: Socket, maxBytes: number, tooLarge: (size: number) => void): Socket {
  let state: "header" | "length" | "body" = "header";
  let length = 0;
  let multiplier = 1;
  let headerBytes = 0;
  let left = 0;
  const scan = (chunk: Uint8Array): boolean => {
    let i = 0;
    while (i < chunk.length) {
      if (state === "body") {
        const skip = Math.min(left, chunk.length - i);
        i += skip;
        left -= skip;
        if (left === 0) state = "header";
        continue;
      }
      const b = chunk[i++]!;
      if (state === "header") {
        state = "length";
        length = 0;
        multiplier = 1;
        headerBytes = 1;
        continue;
      }
      length += (b & 0x7f) * multiplier;
      multiplier *= 128;
      headerBytes++;
      if (b & 0x80) continue;
      const size = headerBytes + length;
      if (size > maxBytes) {
        tooLarge(size);
        return false;
      }
      left = length;
      state = left === 0 ? "header" : "body";
    }
    return true;
  };
  const read = sock.read.bind(sock);
  sock.read = (n?: number) => {
    const chunk = read(n) as Buffer | string | null;
    if (chunk === null || typeof chunk === "string") return chunk;
    if (scan(chunk)) return chunk;
    sock.destroy();
    return null;
  };
  return sock;
}
