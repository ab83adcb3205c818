import { timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { authenticateChallenges, parseAuthorization } from "../../src/http/authorization.ts";

const digest = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest();

/**
 * The local write API's optional token (--api-token): `Authorization: Bearer TOKEN`, or HTTP
 * Basic with the token as password (what Hawkular clients configured with a password send).
 * Compared in constant time, as digests so that the length does not show either.
 */
export function requireApiToken(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async (c, next) => {
    const p = parseAuthorization(c.req.header("Authorization"));
    const presented = p === undefined || typeof p === "string" ? undefined : p.scheme === "bearer" ? p.token : p.password;
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      const why = presented === undefined ? "this agent requires its api token (Authorization: Bearer TOKEN)" : "wrong api token";
      return c.json({ errorMsg: why }, 401, { "WWW-Authenticate": authenticateChallenges("outpost-agent") });
    }
    await next();
  };
}
