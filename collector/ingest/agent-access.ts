import { createHash, timingSafeEqual } from "node:crypto";
import { OptionError } from "../../src/config/options.ts";
import { AGENT_PUBLISHES, AGENT_SUBSCRIBES, parseFilter, parseTopic } from "../../src/protocol/topics.ts";

/**
 * Who may publish what on the embedded broker. With credentials configured, an agent logs in
 * as a tenant's user and may only use that tenant's topics; without, any agent is accepted
 * (quick start). Either way agents may only publish agent→collector kinds and subscribe to
 * collector→agent kinds, so no agent can forge an ack.
 */
export interface AgentCredentials {
  /** Tenant of the user when the password matches; undefined otherwise. */
  check(username: string, password: Uint8Array): string | undefined;
  readonly required: boolean;
}

const digest = (b: Uint8Array | string) => createHash("sha256").update(b).digest();

/** Entries "tenant:username:password" (the password may contain ":"). */
export function parseAgentCredentials(entries: string[]): AgentCredentials {
  const users = new Map<string, { tenant: string; hash: Buffer }>();
  for (const e of entries) {
    const a = e.indexOf(":");
    const b = a < 0 ? -1 : e.indexOf(":", a + 1);
    const tenant = e.slice(0, a).trim();
    const username = e.slice(a + 1, b).trim();
    if (a < 0 || b < 0 || tenant === "" || username === "") {
      throw new OptionError(`agent-credentials: "${e.replace(/:[^:]*$/, ":***")}" is not tenant:username:password`);
    }
    if (users.has(username)) throw new OptionError(`agent-credentials: username "${username}" appears twice`);
    users.set(username, { tenant, hash: digest(e.slice(b + 1)) });
  }
  return {
    required: users.size > 0,
    check(username, password) {
      const u = users.get(username);
      // Comparing digests keeps the comparison constant-time whatever the password length.
      return u && timingSafeEqual(u.hash, digest(password)) ? u.tenant : undefined;
    },
  };
}

/** Why `tenant` (undefined: not restricted) may not publish to `topic`, or undefined when it may. */
export function publishDenied(prefix: string, tenant: string | undefined, topic: string): string | undefined {
  const a = parseTopic(prefix, topic);
  if (!a) return `topic ${topic} is not an agent topic`;
  if (!AGENT_PUBLISHES.has(a.kind)) return `agents do not publish ${a.kind} messages`;
  if (tenant !== undefined && a.tenant !== tenant) return `topic ${topic} belongs to another tenant`;
  return undefined;
}

export function subscribeAllowed(prefix: string, tenant: string | undefined, filter: string): boolean {
  const f = parseFilter(prefix, filter);
  if (!f || !AGENT_SUBSCRIBES.has(f.kind)) return false;
  return tenant === undefined || f.tenant === tenant;
}
