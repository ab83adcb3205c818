import { createHash, generateKeyPairSync } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { OptionError, type OptionValues } from "../../src/config/options.ts";
import { secretFileOpenness } from "../../src/config/secret-option.ts";
import { elfArch } from "../../src/release/elf.ts";
import { formatPublicKey, isReleaseArch, parsePrivateKey, RELEASE_ARCHES, signRelease } from "../../src/release/signature.ts";
import { versionProblem } from "../../src/release/version.ts";
import { writeFileAtomic } from "./auth-file.ts";
import type { AuthAction } from "./auth-action.ts";

/*
 * The release key (docs/fleet.md, "Upgrades"): `auth release-key` makes it, `auth sign` signs an
 * agent binary with it. The private half never leaves its file (0600, not printed); the public
 * half is printed, for the agents' and the collector's --release-public-key.
 */

const say = (line: string) => process.stderr.write(`${line}\n`);

const keyFileSpec = { name: "key-file", kind: "string", help: "the release key's private half (PEM, written 0600)" } as const;

function required(v: OptionValues, name: string): string {
  const s = v[name] === undefined ? "" : String(v[name]).trim();
  if (s === "") throw new OptionError(`--${name} is required (see --help)`);
  return s;
}

export const releaseKeyActions: Record<string, AuthAction> = {
  "release-key": {
    writes: false,
    summary: "make the Ed25519 release key that signs agent releases: --key-file FILE gets the private half (0600), the public half is printed to pin",
    options: [keyFileSpec],
    async run(v) {
      const path = required(v, "key-file");
      if (existsSync(path)) throw new OptionError(`--key-file: ${path} exists; a release key is never overwritten (agents pin its public half)`);
      const { publicKey, privateKey } = generateKeyPairSync("ed25519");
      writeFileAtomic(path, privateKey.export({ format: "pem", type: "pkcs8" }) as string, 0o600);
      say(`wrote the release key's private half to ${path} (mode 600; keep it off the collector and the agents). Its public half, below, goes into`);
      say("every agent's and the collector's --release-public-key (docs/fleet.md, \"Upgrades\")");
      process.stdout.write(`${formatPublicKey(publicKey)}\n`);
    },
  },
  sign: {
    writes: false,
    summary: "sign an agent binary for upload: --key-file FILE --binary FILE --release-version V [--arch x64|arm64]; prints the signature",
    options: [
      keyFileSpec,
      { name: "binary", kind: "string", help: "the agent binary (a single-file build, `npm run release`)" },
      { name: "release-version", kind: "string", help: "the version the binary is released as (what it says with --version)" },
      { name: "arch", kind: "string", help: `its architecture (${RELEASE_ARCHES.join(" or ")}); default: read from the binary` },
    ],
    async run(v) {
      const keyPath = required(v, "key-file");
      const binary = required(v, "binary");
      const version = required(v, "release-version");
      const bad = versionProblem(version);
      if (bad) throw new OptionError(`--release-version: ${version} ${bad}`);
      const open = secretFileOpenness(keyPath);
      if (open) throw new OptionError(`--key-file: ${open}: run chmod 600 ${keyPath}`);
      const key = parsePrivateKey(readFileSync(keyPath, "utf8"));
      const detected = elfArch(binary);
      const given = v.arch === undefined ? undefined : String(v.arch);
      if (given !== undefined && !isReleaseArch(given)) throw new OptionError(`--arch: ${given} is not ${RELEASE_ARCHES.join(" or ")}`);
      if (given !== undefined && detected !== undefined && given !== detected) throw new OptionError(`--arch ${given}, but ${binary} is an ${detected} executable`);
      const arch = given ?? detected;
      if (arch === undefined) throw new OptionError(`${binary} is not an x86-64 or ARM64 executable: give --arch`);
      const bytes = readFileSync(binary);
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      const size = statSync(binary).size;
      say(`signed ${binary}: version ${version}, ${arch}, ${size} bytes, sha256 ${sha256}`);
      process.stdout.write(`${signRelease(key, { version, arch, size, sha256 })}\n`);
    },
  },
};
