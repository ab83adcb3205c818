import type { Context } from "hono";

interface RequestIpSource {
  requestIP(req: Request): { address: string } | null;
}

/**
 * The address of the client connected to this server (not any proxy header). Bun passes its
 * server as the app's env; without one (an app called in-process) there is no peer.
 */
export function peerAddress(c: Context): string | undefined {
  const server = c.env as Partial<RequestIpSource> | undefined;
  if (typeof server?.requestIP !== "function") return undefined;
  const address = server.requestIP(c.req.raw)?.address;
  // An IPv4 client of a dual-stack socket shows as ::ffff:a.b.c.d.
  return address?.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

/**
 * The client behind trusted proxies: X-Forwarded-For read from the right, skipping the
 * trusted proxies' own entries (a client can put anything on the left). Without a trusted
 * proxy in front, the peer itself.
 */
export function clientAddress(c: Context, trustedProxy?: (address: string) => boolean): string | undefined {
  const peer = peerAddress(c);
  if (peer === undefined || !trustedProxy?.(peer)) return peer;
  const chain = (c.req.header("X-Forwarded-For") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = chain.length - 1; i >= 0; i--) if (!trustedProxy(chain[i]!)) return chain[i];
  return chain[0] ?? peer;
}
