import { createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * How secrets are kept (docs/security.md, "How secrets are stored").
 *
 * Passwords chosen by people: argon2id (Bun.password) at OWASP's minimum parameters, 19 MiB
 * and 2 passes: about 50 ms per check here, which makes offline guessing from a stolen file
 * slow. The collector checks a password once and then remembers the success for a few minutes
 * (collector/auth/credentials.ts), so clients that send Basic on every request stay fast.
 *
 * Bearer tokens: 256 random bits, generated here. No guessing can find such a secret whatever
 * the hash speed, so a slow hash would only cost every request its 50 ms. They are kept as
 * HMAC-SHA256 under a random per-token key: the file never holds the token, and equal tokens
 * never hash alike.
 */
const ARGON2 = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, ARGON2);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash).catch(() => false);
}

/** A hash of nothing anyone knows: checked for unknown users, so they cost as long as known ones. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString("base64url"));
  return decoy;
}

/** A password for an agent or a service account: 24 random bytes, URL-safe base64 (32 characters). */
export function generatePassword(): string {
  return randomBytes(24).toString("base64url");
}

const TOKEN_PREFIX = "outpost";

/** A new bearer token `outpost_<id>_<secret>`: the id finds its entry, the secret proves it. */
export function newToken(): { id: string; token: string; secret: string } {
  const id = randomBytes(6).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  return { id, secret, token: `${TOKEN_PREFIX}_${id}_${secret}` };
}

/** The id and secret of a token, or undefined when it is not one of ours. */
export function splitToken(token: string): { id: string; secret: string } | undefined {
  const m = /^outpost_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : undefined;
}

export function hashTokenSecret(secret: string, key = randomBytes(16)): string {
  const mac = createHmac("sha256", key).update(secret).digest();
  return `hmac-sha256$${key.toString("base64url")}$${mac.toString("base64url")}`;
}

/** Constant-time check of a token secret against its stored hash. */
export function verifyTokenSecret(secret: string, stored: string): boolean {
  const [, key, mac] = stored.split("$");
  if (key === undefined || mac === undefined) return false;
  const expected = Buffer.from(mac, "base64url");
  const actual = createHmac("sha256", Buffer.from(key, "base64url")).update(secret).digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/**
 * Mosquitto's own password_file format ($7$: PBKDF2-SHA512, 12-byte salt, 64-byte hash, all
 * base64), so an external Mosquitto can check the same agent passwords. Mosquitto's default
 * is 101 iterations; 20,000 costs it about 15 ms per connect here and a guesser 200 times more.
 */
export const MOSQUITTO_ITERATIONS = 20_000;

export function mosquittoHash(password: string, iterations = MOSQUITTO_ITERATIONS, salt = randomBytes(12)): string {
  const hash = pbkdf2Sync(password, salt, iterations, 64, "sha512");
  return `$7$${iterations}$${salt.toString("base64")}$${hash.toString("base64")}`;
}
