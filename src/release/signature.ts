/**
 * Signed agent releases (docs/fleet.md, "Upgrades"). A release binary is described by its
 * version, architecture, size and SHA-256; the release key (Ed25519, made by `collector auth
 * release-key`) signs that description, not the bytes, so the agent can check the signature
 * and the bytes separately, and a signature cannot be moved to another version or architecture.
 * The collector checks it at upload, the agent again before it runs anything it downloaded.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

export const RELEASE_ARCHES = ["x64", "arm64"] as const;
export type ReleaseArch = (typeof RELEASE_ARCHES)[number];

export function isReleaseArch(s: unknown): s is ReleaseArch {
  return typeof s === "string" && (RELEASE_ARCHES as readonly string[]).includes(s);
}

/** What the release key signs about one binary. */
export interface ReleaseDescription {
  version: string;
  arch: ReleaseArch;
  size: number;
  /** Lower-case hex. */
  sha256: string;
}

/** Printed public keys carry this prefix, so a key of another kind is not taken for one. */
const PUBLIC_PREFIX = "ed25519:";

/** The exact bytes signed: one field a line, in this order. */
export function signedText(d: ReleaseDescription): string {
  return `outpost-agent release\nversion ${d.version}\narch ${d.arch}\nsize ${d.size}\nsha256 ${d.sha256}\n`;
}

/** The printed form of a public key: `ed25519:` and its 32 bytes in base64url. */
export function formatPublicKey(key: KeyObject): string {
  const jwk = key.export({ format: "jwk" }) as { x?: string };
  return `${PUBLIC_PREFIX}${jwk.x}`;
}

/**
 * A release public key from its printed form (`ed25519:…`) or a PEM public key; throws an
 * Error saying what is wrong. The key is what an agent pins: nothing else is trusted.
 */
export function parsePublicKey(text: string): KeyObject {
  const s = text.trim();
  if (s.startsWith(PUBLIC_PREFIX)) {
    const x = s.slice(PUBLIC_PREFIX.length);
    if (!/^[A-Za-z0-9_-]{43}$/.test(x)) throw new Error("an ed25519: key is 43 base64url characters (32 bytes)");
    return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
  }
  if (s.startsWith("-----BEGIN PUBLIC KEY-----")) {
    const key = createPublicKey(s);
    if (key.asymmetricKeyType !== "ed25519") throw new Error(`the PEM key is ${key.asymmetricKeyType}, not Ed25519`);
    return key;
  }
  throw new Error("not a release public key: expected ed25519:… (as `collector auth release-key` prints it) or a PEM public key");
}

/** The private half from its PEM file (PKCS#8). */
export function parsePrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (e) {
    throw new Error(`not a PEM private key: ${(e as Error).message}`);
  }
  if (key.asymmetricKeyType !== "ed25519") throw new Error(`the key is ${key.asymmetricKeyType}, not Ed25519`);
  return key;
}

/** The signature of a description, base64. */
export function signRelease(privateKey: KeyObject, d: ReleaseDescription): string {
  return sign(null, Buffer.from(signedText(d)), privateKey).toString("base64");
}

/** Whether `signature` (base64) is the key's signature of the description. */
export function verifyRelease(publicKey: KeyObject, d: ReleaseDescription, signature: string): boolean {
  if (!/^[A-Za-z0-9+/]{86}==$/.test(signature)) return false;
  try {
    return verify(null, Buffer.from(signedText(d)), publicKey, Buffer.from(signature, "base64"));
  } catch {
    return false;
  }
}
