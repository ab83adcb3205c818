import { createHash, type KeyObject, randomBytes } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ApiError, badRequest, conflict } from "../../src/http/errors.ts";
import type { Logger } from "../../src/log/logger.ts";
import { elfArchOf } from "../../src/release/elf.ts";
import { isReleaseArch, RELEASE_ARCHES, verifyRelease } from "../../src/release/signature.ts";
import { versionProblem } from "../../src/release/version.ts";
import { PIECE_BYTES, type ReleaseBinary, type ReleaseStore } from "../store/releases/types.ts";

/** Largest agent binary taken (a release build is about 100 MB). */
export const MAX_RELEASE_BYTES = 512 * 1024 ** 2;

export interface UploadRequest {
  version: string;
  arch: string;
  /** Base64 Ed25519 signature (`collector auth sign`). */
  signature: string | undefined;
  body: ReadableStream<Uint8Array> | null;
  /** Content-Length, when declared. */
  length?: string;
  /** The SHA-256 the uploader expects (Outpost-Sha256), checked when given. */
  sha256?: string;
  who: string;
}

export interface Release {
  version: string;
  binaries: ReleaseBinary[];
}

/**
 * Agent releases (docs/fleet.md, "Upgrades"): an upload is taken into a private file in the data
 * folder while its size and SHA-256 are counted, then its signature is checked against the
 * release public key, and only then stored; nothing half-checked is ever served.
 */
export class ReleaseService {
  constructor(
    private readonly d: {
      store: ReleaseStore;
      /** --release-public-key; without it no release is taken. */
      publicKey: () => KeyObject | undefined;
      /** Where uploads are spooled (created 0700). */
      spoolDir: string;
      /** Whether a version is named by a rollout under way (it may not be deleted). */
      inUse: (version: string) => Promise<string | undefined>;
      log: Logger;
      now?: () => number;
      maxBytes?: number;
    },
  ) {}

  async upload(q: UploadRequest): Promise<ReleaseBinary> {
    const key = this.d.publicKey();
    if (!key) throw conflict("This collector has no --release-public-key: it cannot check a release's signature, so it takes none (docs/fleet.md)");
    const bad = versionProblem(q.version);
    if (bad) throw badRequest(`Version '${q.version}' ${bad}`);
    if (!isReleaseArch(q.arch)) throw badRequest(`Architecture '${q.arch}' is not ${RELEASE_ARCHES.join(" or ")}`);
    const arch = q.arch;
    if (!q.signature) throw badRequest("The release's signature is missing: send it in the Outpost-Signature header (`collector auth sign` prints it)");
    if (q.sha256 !== undefined && !/^[0-9a-fA-F]{64}$/.test(q.sha256)) throw badRequest("Outpost-Sha256 must be 64 hexadecimal digits");
    const max = this.d.maxBytes ?? MAX_RELEASE_BYTES;
    const declared = q.length === undefined ? undefined : Number(q.length);
    if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0)) throw badRequest(`Invalid Content-Length: ${q.length}`);
    if (declared !== undefined && declared > max) throw new ApiError(413, `The binary is ${declared} bytes; at most ${max} are taken`);
    if ((await this.d.store.binaries(q.version)).some((b) => b.arch === arch)) throw conflict(`Release ${q.version} has an ${arch} binary already: delete the version first to replace it`);
    if (!q.body) throw badRequest("The request has no body: send the binary");

    mkdirSync(this.d.spoolDir, { recursive: true, mode: 0o700 });
    const spool = join(this.d.spoolDir, `upload-${randomBytes(8).toString("hex")}.part`);
    const fd = openSync(spool, "wx+", 0o600);
    try {
      const hash = createHash("sha256");
      const head = new Uint8Array(20);
      let size = 0;
      const reader = q.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (size + value.length > max) throw new ApiError(413, `The binary is more than ${max} bytes`);
          if (size < head.length) head.set(value.subarray(0, head.length - size), size);
          writeSync(fd, value);
          hash.update(value);
          size += value.length;
        }
      } catch (e) {
        await reader.cancel().catch(() => {});
        throw e;
      }
      if (declared !== undefined && size !== declared) throw badRequest(`Received ${size} bytes where Content-Length said ${declared}`);
      const sha256 = hash.digest("hex");
      if (q.sha256 !== undefined && q.sha256.toLowerCase() !== sha256) throw badRequest(`The binary's SHA-256 is ${sha256}, not ${q.sha256.toLowerCase()} (Outpost-Sha256): it changed on the way`);
      const elf = elfArchOf(head);
      if (elf !== arch) throw badRequest(`The binary is ${elf === undefined ? "not an x86-64 or ARM64 executable" : `an ${elf} executable`}, not ${arch}`);
      const description = { version: q.version, arch, size, sha256 };
      if (!verifyRelease(key, description, q.signature)) {
        throw badRequest(`The signature is not the release key's signature of version ${q.version}, ${arch}, ${size} bytes, SHA-256 ${sha256} (signed with another key, or for another binary or version?)`);
      }
      const b: ReleaseBinary = { ...description, signature: q.signature, uploadedAt: (this.d.now ?? Date.now)(), uploadedBy: q.who };
      if (!(await this.d.store.putBinary(b, pieces(fd, size)))) throw conflict(`Release ${q.version} has an ${arch} binary already`);
      this.d.log.info("agent release uploaded", { version: q.version, arch, size, sha256, by: q.who });
      return b;
    } finally {
      closeSync(fd);
      unlinkSync(spool);
    }
  }

  async list(): Promise<Release[]> {
    const out = new Map<string, ReleaseBinary[]>();
    for (const b of await this.d.store.binaries()) out.set(b.version, [...(out.get(b.version) ?? []), b]);
    return [...out].map(([version, binaries]) => ({ version, binaries }));
  }

  async get(version: string): Promise<Release> {
    const binaries = await this.d.store.binaries(version);
    if (binaries.length === 0) throw new ApiError(404, `No release ${version}`);
    return { version, binaries };
  }

  async delete(version: string, who: string): Promise<void> {
    const rollout = await this.d.inUse(version);
    if (rollout) throw conflict(`Release ${version} is being rolled out (${rollout}): pause it and let it end first`);
    if ((await this.d.store.deleteRelease(version)) === 0) throw new ApiError(404, `No release ${version}`);
    this.d.log.info("agent release deleted", { version, by: who });
  }

  async download(version: string, arch: string): Promise<{ binary: ReleaseBinary; bytes: AsyncIterable<Uint8Array> }> {
    const binary = (await this.d.store.binaries(version)).find((b) => b.arch === arch);
    const bytes = binary && (await this.d.store.readBinary(version, arch));
    if (!binary || !bytes) throw new ApiError(404, `No ${arch} binary of release ${version}`);
    return { binary, bytes };
  }
}

/** The spooled file in pieces, read one at a time inside the store's transaction. */
function* pieces(fd: number, size: number): Generator<Uint8Array> {
  for (let at = 0; at < size; at += PIECE_BYTES) {
    const piece = new Uint8Array(Math.min(PIECE_BYTES, size - at));
    let got = 0;
    while (got < piece.length) {
      const n = readSync(fd, piece, got, piece.length - got, at + got);
      if (n === 0) throw new Error("the spooled upload is shorter than written");
      got += n;
    }
    yield piece;
  }
}
