/**
 * `collector auth release-key` and `auth sign` as an operator runs them: the private half is
 * written 0600 and never printed, the public half printed to pin, an existing key never
 * overwritten; a signature verifies against the printed key, for that version and architecture.
 */
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parsePublicKey, verifyRelease } from "../../src/release/signature.ts";
import { run } from "../helpers/program.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-release-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const key = join(dir, "release.key");

/** An x86-64 ELF header and some bytes. */
const binary = join(dir, "outpost-agent");
const bytes = new Uint8Array(randomBytes(10_000));
bytes.set([0x7f, 0x45, 0x4c, 0x46], 0);
bytes[18] = 62;
bytes[19] = 0;
writeFileSync(binary, bytes);

describe("the release key's commands", () => {
  it("release-key writes the private half 0600, prints only the public half, and never overwrites a key", async () => {
    const r = await run("collector", ["auth", "release-key", "--key-file", key]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^ed25519:[A-Za-z0-9_-]{43}$/);
    expect(r.stdout + r.stderr).not.toMatch(/PRIVATE KEY/);
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(readFileSync(key, "utf8")).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const again = await run("collector", ["auth", "release-key", "--key-file", key]);
    expect([again.code, again.stderr.trim()]).toEqual([2, `error: --key-file: ${key} exists; a release key is never overwritten (agents pin its public half)`]);

    const s = await run("collector", ["auth", "sign", "--key-file", key, "--binary", binary, "--release-version", "1.2.3"]);
    expect(s.code, s.stderr).toBe(0);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const pub = parsePublicKey(r.stdout);
    expect(verifyRelease(pub, { version: "1.2.3", arch: "x64", size: bytes.length, sha256 }, s.stdout.trim())).toBe(true);
    // Not for another version or architecture.
    expect(verifyRelease(pub, { version: "1.2.4", arch: "x64", size: bytes.length, sha256 }, s.stdout.trim())).toBe(false);
    expect(verifyRelease(pub, { version: "1.2.3", arch: "arm64", size: bytes.length, sha256 }, s.stdout.trim())).toBe(false);
  });

  it("sign refuses a wrong architecture, a bad version and a key file others can read", async () => {
    const arch = await run("collector", ["auth", "sign", "--key-file", key, "--binary", binary, "--release-version", "1.2.3", "--arch", "arm64"]);
    expect(arch.stderr.trim()).toBe(`error: --arch arm64, but ${binary} is an x64 executable`);
    const version = await run("collector", ["auth", "sign", "--key-file", key, "--binary", binary, "--release-version", "latest"]);
    expect(version.stderr.trim()).toBe("error: --release-version: latest is not a version such as 1.2.3 or 1.2.3-rc.1");
    chmodSync(key, 0o644);
    const open = await run("collector", ["auth", "sign", "--key-file", key, "--binary", binary, "--release-version", "1.2.3"]);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/can be read by every user of this machine \(mode 644\): run chmod 600/);
  });
});
