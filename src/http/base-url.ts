import type { Context } from "hono";
import { peerAddress } from "./peer.ts";

/**
 * Where absolute URLs (Location headers) point. By default the request's own scheme and Host.
 * X-Forwarded-Proto/-Host are believed only from a trusted proxy: from anyone else they would
 * let a client make the server hand out links to a host of the client's choosing.
 */
export interface BaseUrlPolicy {
  /** The URL clients reach the server at (e.g. https://outpost.example.com); wins over everything. */
  externalUrl?: string;
  /** Peers whose X-Forwarded-Proto/-Host are believed. */
  trustedProxy?: (address: string) => boolean;
}

/** The first value of a proxy header (a chain of proxies appends theirs after a comma). */
function firstValue(v: string | undefined): string | undefined {
  const first = v?.split(",")[0]?.trim();
  return first === "" ? undefined : first;
}

/** scheme://host[:port] of the request, without a trailing slash. */
export function requestBase(c: Context, policy: BaseUrlPolicy): string {
  if (policy.externalUrl) return policy.externalUrl.replace(/\/+$/, "");
  const url = new URL(c.req.url);
  let proto = url.protocol.replace(":", "");
  let host = c.req.header("Host") ?? url.host;
  const peer = policy.trustedProxy ? peerAddress(c) : undefined;
  if (peer !== undefined && policy.trustedProxy?.(peer)) {
    const fp = firstValue(c.req.header("X-Forwarded-Proto"));
    if (fp === "http" || fp === "https") proto = fp;
    host = firstValue(c.req.header("X-Forwarded-Host")) ?? host;
  }
  return `${proto}://${host}`;
}
