import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { OptionError } from "../../src/config/options.ts";
import type { Logger } from "../../src/log/logger.ts";
import { type ClaimFields, claimText, instanceIdOf, rawPublicKey } from "../../src/protocol/identity.ts";
import { writePrivateFile } from "./private-file.ts";

/** The file in the data folder holding the agent's private key (PKCS#8 PEM, 0600). */
export const IDENTITY_FILE = "identity.key";

export interface AgentIdentity {
  /** 32 hex digits: the first 16 bytes of the SHA-256 of the public key. */
  instance: string;
  /** The raw Ed25519 public key (32 bytes). */
  publicKey: Uint8Array;
  /** The path of the key file, for messages. */
  path: string;
  /** The signature of a claim (src/protocol/identity.ts). */
  signClaim(c: ClaimFields): Uint8Array;
}

function identityOf(privateKey: KeyObject, path: string): AgentIdentity {
  const publicKey = rawPublicKey(createPublicKey(privateKey).export({ format: "der", type: "spki" }));
  return { instance: instanceIdOf(publicKey), publicKey, path, signClaim: (c) => new Uint8Array(sign(null, claimText(c), privateKey)) };
}

/**
 * The agent's identity (docs/fleet.md, "Identity"): an Ed25519 key pair made at the first start
 * and kept in `identity.key` in the data folder, readable by its owner only. A key file others
 * can read, or one that is not an Ed25519 key, stops the start with one line.
 */
export function loadOrCreateIdentity(dataDir: string, log: Logger): AgentIdentity {
  const path = join(dataDir, IDENTITY_FILE);
  let pem: string | undefined;
  try {
    pem = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw new OptionError(`cannot read the agent's identity ${path}: ${(e as Error).message}`);
  }
  if (pem === undefined) {
    const { privateKey } = generateKeyPairSync("ed25519");
    writePrivateFile(path, privateKey.export({ format: "pem", type: "pkcs8" }).toString());
    const id = identityOf(privateKey, path);
    log.info("made this agent's identity", { instance: id.instance, file: path });
    return id;
  }
  if ((statSync(path).mode & 0o077) !== 0) throw new OptionError(`the agent's identity ${path} is readable by other users: chmod 600 it (or delete it to make a new identity)`);
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (e) {
    throw new OptionError(`the agent's identity ${path} is not a private key (${(e as Error).message}); delete it to make a new identity`);
  }
  if (key.asymmetricKeyType !== "ed25519") throw new OptionError(`the agent's identity ${path} is a ${key.asymmetricKeyType} key, not Ed25519; delete it to make a new identity`);
  return identityOf(key, path);
}

