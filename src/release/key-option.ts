import { readFileSync } from "node:fs";
import type { KeyObject } from "node:crypto";
import { OptionError, type OptionSpec, type OptionValues } from "../config/options.ts";
import { parsePublicKey } from "./signature.ts";

/** --release-public-key of both programs: the release key agents' upgrades must be signed with (docs/fleet.md). */
export function releaseKeyOption(help: string): OptionSpec {
  return { name: "release-public-key", kind: "string", help };
}

/**
 * The pinned release key: `ed25519:…` as `collector auth release-key` prints it, or the path of
 * a PEM public key file. Undefined when not set; an OptionError when it is not a key.
 */
export function releasePublicKeyOf(values: OptionValues): KeyObject | undefined {
  const v = values["release-public-key"];
  if (v === undefined || String(v).trim() === "") return undefined;
  let text = String(v).trim();
  if (!text.startsWith("ed25519:")) {
    try {
      text = readFileSync(text, "utf8");
    } catch (e) {
      throw new OptionError(`--release-public-key: "${text}" is neither ed25519:… nor a readable PEM file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  try {
    return parsePublicKey(text);
  } catch (e) {
    throw new OptionError(`--release-public-key: ${(e as Error).message}`);
  }
}
