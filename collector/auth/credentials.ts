import { createHmac, randomBytes } from "node:crypto";
import { type AuthFile, type AuthToken, type AuthUser, readAuthFile } from "./auth-file.ts";
import { decoyHash, splitToken, verifyPassword, verifyTokenSecret } from "./secrets.ts";

/** Who presented valid credentials, and so what they may do. */
export type Principal =
  | { kind: "user"; name: string; admin: boolean; tenants: ReadonlySet<string> }
  | { kind: "token"; name: string; id: string; admin: boolean; tenants: ReadonlySet<string> }
  | { kind: "agent"; name: string; tenant: string; feed: string }
  | { kind: "collector"; name: string };

/** Identifies a credential across reloads: users by name, tokens by id. */
export function principalKey(p: Principal): string {
  return p.kind === "token" ? `token:${p.id}` : `user:${p.name}`;
}

function principalOf(name: string, entry: AuthUser | AuthToken, kind: "user" | "token", id = name): Principal {
  if ("agent" in entry && entry.agent) return { kind: "agent", name, tenant: entry.agent.tenant, feed: entry.agent.feed };
  if ("collector" in entry && entry.collector) return { kind: "collector", name };
  const tenants = new Set(entry.tenants ?? []);
  return kind === "token" ? { kind, name, id, admin: entry.admin === true, tenants } : { kind, name, admin: entry.admin === true, tenants };
}

interface Remembered {
  principal: Principal;
  expires: number;
}

/** A verified password is remembered this long, so Basic on every request costs one hash, not one argon2id. */
const REMEMBER_MS = 5 * 60_000;
const REMEMBER_MAX = 10_000;

/**
 * The credentials of --auth-file, checked in constant time, re-read on SIGHUP. A successful
 * password check is remembered (keyed by an HMAC of user and password under a key that lives
 * only in this process, never the password itself) until it expires or the file is re-read.
 */
export class Credentials {
  private file: AuthFile;
  private readonly remembered = new Map<string, Remembered>();
  private readonly key = randomBytes(32);

  private constructor(
    readonly path: string,
    file: AuthFile,
  ) {
    this.file = file;
  }

  /** Reads the file; throws an OptionError (one clear line) when it is missing or invalid. */
  static load(path: string): Credentials {
    return new Credentials(path, readAuthFile(path));
  }

  /**
   * Re-reads the file. On an error the credentials in use stay as they were and the error is
   * thrown. Returns the keys (principalKey) of credentials removed or changed.
   */
  reload(): Set<string> {
    const next = readAuthFile(this.path);
    const changed = new Set<string>();
    for (const [kind, before, after] of [
      ["user", this.file.users, next.users],
      ["token", this.file.tokens, next.tokens],
    ] as const) {
      for (const [name, entry] of Object.entries(before)) {
        if (JSON.stringify(entry) !== JSON.stringify((after as Record<string, unknown>)[name])) changed.add(`${kind}:${name}`);
      }
    }
    this.file = next;
    this.remembered.clear();
    return changed;
  }

  get counts(): { users: number; tokens: number } {
    return { users: Object.keys(this.file.users).length, tokens: Object.keys(this.file.tokens).length };
  }

  /** The user's principal when the password is right; undefined otherwise (also for unknown users). */
  async checkPassword(user: string, password: string): Promise<Principal | undefined> {
    const memo = createHmac("sha256", this.key).update(user).update("\u0000").update(password).digest("base64");
    const hit = this.remembered.get(memo);
    if (hit && hit.expires > Date.now()) return hit.principal;
    const entry = Object.hasOwn(this.file.users, user) ? this.file.users[user] : undefined;
    // An unknown user costs one argon2id check too, so timing does not tell which users exist.
    const ok = await verifyPassword(password, entry?.password ?? (await decoyHash()));
    if (!ok || !entry) return undefined;
    // The file may have been re-read while the check ran: what counts is the entry then.
    if (this.file.users[user] !== entry) return this.checkPassword(user, password);
    const principal = principalOf(user, entry, "user");
    if (this.remembered.size >= REMEMBER_MAX) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(memo, { principal, expires: Date.now() + REMEMBER_MS });
    return principal;
  }

  /** Whether this password was verified recently (so it can pass while its address is throttled). */
  rememberedPassword(user: string, password: string): boolean {
    const memo = createHmac("sha256", this.key).update(user).update("\u0000").update(password).digest("base64");
    return (this.remembered.get(memo)?.expires ?? 0) > Date.now();
  }

  /** The token's principal when it is one of the file's; constant time in the secret. */
  checkToken(token: string): Principal | undefined {
    const parts = splitToken(token);
    if (!parts) return undefined;
    const entry = Object.hasOwn(this.file.tokens, parts.id) ? this.file.tokens[parts.id] : undefined;
    if (!entry || !verifyTokenSecret(parts.secret, entry.hash)) return undefined;
    return principalOf(entry.name ?? `token ${parts.id}`, entry, "token", parts.id);
  }

  /**
   * Whether a principal checked earlier still stands after a reload: the user still exists with
   * the same password and role. Used to disconnect agents whose credential was removed.
   */
  stillValid(principal: Principal, passwordHashAtLogin: string): boolean {
    const entry = Object.hasOwn(this.file.users, principal.name) ? this.file.users[principal.name] : undefined;
    if (!entry || entry.password !== passwordHashAtLogin) return false;
    return JSON.stringify(principalOf(principal.name, entry, "user"), setsAsArrays) === JSON.stringify(principal, setsAsArrays);
  }

  /** The stored hash of a user's password (to compare after a reload); undefined for unknown users. */
  passwordHashOf(user: string): string | undefined {
    return Object.hasOwn(this.file.users, user) ? this.file.users[user]?.password : undefined;
  }
}

function setsAsArrays(_key: string, v: unknown): unknown {
  return v instanceof Set ? [...v].sort() : v;
}
