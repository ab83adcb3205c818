import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { PROGRAMS, type Program } from "./binaries.ts";
import type { ReleaseInfo } from "./build-info.ts";
import { ROOT, TARGETS, type Target } from "./runtimes.ts";

/** Package name of a program: outpost-agent, outpost-collector. */
export const packageName = (program: Program) => `outpost-${program}`;

export const debFileName = (program: Program, version: string, target: Target) => `${packageName(program)}_${version}_${TARGETS[target].debArch}.deb`;

/** The documents shipped with each package and tarball. */
export const SHIPPED_DOCS = ["install.md", "operations.md", "security.md"] as const;

const DESCRIPTIONS: Record<Program, string> = {
  agent: `Collects the host's metrics from procfs and statfs, accepts data points on a
local write API, keeps every point in a SQLite buffer until the collector
has committed it, evaluates alert triggers locally, and forwards everything
over MQTT. Runs as the system user outpost; configuration in
/etc/outpost/agent.toml, buffer in /var/lib/outpost/agent.`,
  collector: `Stores what Outpost agents send over MQTT (embedded broker, or an external
one) and serves Hawkular-compatible metrics, alerting, inventory and
forecasting HTTP interfaces. Runs as the system user outpost; configuration
in /etc/outpost/collector.toml, data in /var/lib/outpost/collector.`,
};

/**
 * What lintian reports that is the Bun runtime's doing, not the package's: the executable is
 * Bun's (built by its project without PIE/RELRO, unstripped because the program is appended to
 * it, with libjpeg inside).
 */
function lintianOverrides(pkg: string): string {
  const bin = `[usr/bin/${pkg}]`;
  return `# The executable is the Bun runtime with the program appended (bun build --compile):
# stripping it would cut the program off; PIE, RELRO and the embedded libjpeg are Bun's build.
${pkg}: unstripped-binary-or-object ${bin}
${pkg}: hardening-no-pie ${bin}
${pkg}: hardening-no-relro ${bin}
${pkg}: embedded-library libjpeg ${bin}
# --help documents every option; docs are in /usr/share/doc/${pkg}.
${pkg}: no-manual-page ${bin}
# Reads $DPKG_ROOT/etc/passwd when dpkg installs into another root without a chroot, where
# getent would answer for the wrong system.
${pkg}: maintainer-script-should-not-parse-etc-passwd-or-group *
`;
}

/** A Debian changelog entry for this build (RFC 5322 date). */
function changelog(pkg: string, info: ReleaseInfo, maintainer: string): string {
  const date = new Date(info.date).toUTCString().replace("GMT", "+0000");
  return `${pkg} (${info.version}) unstable; urgency=medium\n\n  * Release ${info.version}, commit ${info.commit}.\n  * What changed: the project's README and docs/.\n\n -- ${maintainer}  ${date}\n`;
}

function put(root: string, path: string, content: string | Uint8Array, mode: number): void {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, content);
  chmodSync(full, mode);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/**
 * Lays out the package tree of a program (binary, unit, configuration as a conffile, sysusers
 * line, docs, maintainer scripts from deploy/debian/) in `stage`, ready for `dpkg-deb --build`.
 */
export function stageDeb(program: Program, target: Target, info: ReleaseInfo, maintainer: string, binary: string, stage: string): void {
  const pkg = packageName(program);
  copyFileSync(binary, join(mkdirp(join(stage, "usr/bin")), pkg));
  chmodSync(join(stage, "usr/bin", pkg), 0o755);
  put(stage, `lib/systemd/system/${pkg}.service`, readFileSync(join(ROOT, `deploy/systemd/${pkg}.service`)), 0o644);
  put(stage, `etc/outpost/${program}.toml`, readFileSync(join(ROOT, `deploy/config/${program}.toml`)), 0o644);
  put(stage, `usr/lib/sysusers.d/${pkg}.conf`, 'u outpost - "Outpost monitoring" /var/lib/outpost\n', 0o644);
  const doc = `usr/share/doc/${pkg}`;
  for (const d of SHIPPED_DOCS) put(stage, `${doc}/${d}`, readFileSync(join(ROOT, "docs", d)), 0o644);
  put(stage, `${doc}/copyright`, copyright(), 0o644);
  put(stage, `${doc}/changelog.gz`, gzipSync(changelog(pkg, info, maintainer), { level: 9 }), 0o644);
  put(stage, `usr/share/lintian/overrides/${pkg}`, lintianOverrides(pkg), 0o644);

  const payload = filesUnder(stage).filter((f) => !relative(stage, f).startsWith("DEBIAN"));
  const installedKb = Math.ceil(payload.reduce((n, f) => n + statSync(f).size, 0) / 1024);
  const control = [
    `Package: ${pkg}`,
    `Version: ${info.version}`,
    `Architecture: ${TARGETS[target].debArch}`,
    `Maintainer: ${maintainer}`,
    `Installed-Size: ${installedKb}`,
    // The binary links glibc only (2.17 or later: no native addon, docs/prometheus.md "Snappy");
    // adduser makes the user where systemd-sysusers is missing.
    "Depends: libc6 (>= 2.17), adduser",
    "Section: net",
    "Priority: optional",
    `Description: ${PROGRAMS[program].summary}`,
    ...DESCRIPTIONS[program].split("\n").map((l) => ` ${l}`),
    "",
  ].join("\n");
  put(stage, "DEBIAN/control", control, 0o644);
  put(stage, "DEBIAN/conffiles", `/etc/outpost/${program}.toml\n`, 0o644);
  const md5 = payload.map((f) => `${createHash("md5").update(readFileSync(f)).digest("hex")}  ${relative(stage, f)}`).join("\n");
  put(stage, "DEBIAN/md5sums", `${md5}\n`, 0o644);
  for (const script of ["postinst", "prerm", "postrm"]) {
    const text = readFileSync(join(ROOT, "deploy/debian", script), "utf8").replaceAll("@PACKAGE@", pkg).replaceAll("@PROGRAM@", program);
    put(stage, `DEBIAN/${script}`, text, 0o755);
  }
}

function mkdirp(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

function copyright(): string {
  return `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: outpost

Files: *
Copyright: 2026 the Outpost developers
License: see-repository
 The license of the Outpost project, in its source repository.
Comment: The executable embeds the Bun runtime (MIT, Copyright Oven) and the
 JavaScript libraries listed in the project's README (hono, aedes, mqtt,
 cbor-x, zod, nodemailer: MIT, ISC or BSD licenses).
`;
}

/** dpkg-deb --build, gzip-compressed: every dpkg reads it, and it builds in seconds (xz: over a minute). */
export async function buildDeb(stage: string, out: string, compression: "gzip" | "xz" | "zstd" = "gzip"): Promise<void> {
  const p = Bun.spawn(["dpkg-deb", "--root-owner-group", `-Z${compression}`, "--build", stage, out], { stdout: "pipe", stderr: "pipe" });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  if (code !== 0) throw new Error(`dpkg-deb --build ${out} failed: ${err.trim()}`);
}
