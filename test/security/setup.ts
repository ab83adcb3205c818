import { rmSync } from "node:fs";
import { basic, bearer, writeTestAuthFile } from "../helpers/auth.ts";
import { startTestCollector, type TestCollector } from "../helpers/collector.ts";

/** Tenants A and B, and one credential of each kind. */
export const USERS = {
  alice: { name: "alice", password: "alice-pw", tenants: ["A"] },
  bob: { name: "bob", password: "bob-pw", tenants: ["B"] },
  carol: { name: "carol", password: "carol-pw", tenants: ["A", "B"] },
  root: { name: "root", password: "root-pw", admin: true as const },
  scraper: { name: "scraper", password: "scraper-pw", tenants: ["_outpost"] },
  edge: { name: "edge", password: "edge-pw", agent: { tenant: "A", feed: "f1" } },
};

export type UserName = keyof typeof USERS;

export interface SecuredCollector {
  col: TestCollector;
  path: string;
  /** Authorization headers: a user's Basic credentials, or a token of tenant A / B. */
  as(user: UserName): string;
  tokenA: string;
  tokenB: string;
  close(): Promise<void>;
}

/** A real collector with an auth file holding USERS and a token for A and one for B. */
export async function securedCollector(values: Record<string, unknown> = {}): Promise<SecuredCollector> {
  const auth = await writeTestAuthFile(Object.values(USERS), [{ tenants: ["A"] }, { tenants: ["B"] }]);
  const col = await startTestCollector({ "auth-file": auth.path, ...values } as never);
  return {
    col,
    path: auth.path,
    as: (user) => basic(USERS[user].name, USERS[user].password),
    tokenA: bearer(auth.tokens[0]!),
    tokenB: bearer(auth.tokens[1]!),
    async close() {
      await col.close();
      rmSync(auth.dir, { recursive: true, force: true });
    },
  };
}
