/**
 * Agent identity (docs/fleet.md, "Identity"): an Ed25519 key pair the agent makes at its first
 * start. Its instance id is the first 16 bytes of the SHA-256 of the public key, in hex (the
 * size of OpAMP's instance_uid). The agent proves a claim on a feed by signing what it claims;
 * the collector checks the signature against the key the claim carries and the id against the
 * key, so nobody can claim under another agent's id without its private key.
 */
import { createHash, createPublicKey, verify } from "node:crypto";

export const INSTANCE_ID_PATTERN = /^[0-9a-f]{32}$/;
export const ED25519_KEY_BYTES = 32;
export const ED25519_SIGNATURE_BYTES = 64;

/** DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the raw 32 key bytes follow. */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export function instanceIdOf(rawPublicKey: Uint8Array): string {
  return createHash("sha256").update(rawPublicKey).digest("hex").slice(0, 32);
}

/** The raw 32 bytes of an Ed25519 public key, from its SPKI DER form. */
export function rawPublicKey(spkiDer: Uint8Array): Uint8Array {
  return Uint8Array.from(spkiDer.subarray(spkiDer.length - ED25519_KEY_BYTES));
}

export interface ClaimFields {
  tenant: string;
  feed: string;
  instance: string;
  session: number;
  at: number;
}

/** What the agent signs: every field of the claim, one per line, after a domain label. */
export function claimText(c: ClaimFields): Uint8Array {
  return new TextEncoder().encode(["outpost-claim/1", c.tenant, c.feed, c.instance, String(c.session), String(c.at)].join("\n"));
}

/** Whether `sig` is the signature of the claim by `key`, and `key` is the claim's instance's. */
export function verifyClaim(c: ClaimFields, key: Uint8Array, sig: Uint8Array): boolean {
  if (key.length !== ED25519_KEY_BYTES || sig.length !== ED25519_SIGNATURE_BYTES) return false;
  if (instanceIdOf(key) !== c.instance) return false;
  try {
    const publicKey = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, key]), format: "der", type: "spki" });
    return verify(null, claimText(c), publicKey, sig);
  } catch {
    return false;
  }
}
