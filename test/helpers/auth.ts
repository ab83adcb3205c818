import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AuthFile, type AuthUser, emptyAuthFile, writeAuthFile } from "../../collector/auth/auth-file.ts";
import { hashPassword, hashTokenSecret, mosquittoHash, newToken } from "../../collector/auth/secrets.ts";

export type TestUser = { name: string; password: string } & ({ tenants: string[] } | { admin: true } | { agent: { tenant: string; feed: string } } | { collector: true });
export interface TestToken {
  tenants?: string[];
  admin?: true;
}

/**
 * Writes a real auth file (the same hashes as `collector auth add`) into a fresh folder and
 * returns its path and the tokens created, in the order asked.
 */
export async function writeTestAuthFile(users: TestUser[], tokens: TestToken[] = [], dir = mkdtempSync(join(tmpdir(), "outpost-auth-"))): Promise<{ path: string; tokens: string[]; dir: string }> {
  const file: AuthFile = emptyAuthFile();
  for (const u of users) {
    const { name, password, ...role } = u;
    const mqtt = "agent" in role || "collector" in role;
    file.users[name] = { password: await hashPassword(password), ...(role as Partial<AuthUser>), ...(mqtt ? { mosquitto: mosquittoHash(password) } : {}) } as AuthUser;
  }
  const made: string[] = [];
  for (const t of tokens) {
    const tok = newToken();
    file.tokens[tok.id] = { hash: hashTokenSecret(tok.secret), ...(t.admin ? { admin: true } : { tenants: t.tenants ?? [] }) };
    made.push(tok.token);
  }
  const path = join(dir, "auth.json");
  writeAuthFile(path, file);
  return { path, tokens: made, dir };
}

/** The Authorization header value of HTTP Basic. */
export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}

export function bearer(token: string): string {
  return `Bearer ${token}`;
}
