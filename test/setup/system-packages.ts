/**
 * `npm test`'s first step (package.json's pretest): the Debian packages whose programs the tests
 * run. Missing ones are installed as root (apt-get, with service starts blocked: every test
 * starts its own instance of a service on an ephemeral port in a private folder); anyone else is
 * told the one command to run, and the tests do not start.
 *
 *   bun test/setup/system-packages.ts           install what is missing (root) or name the command
 *   bun test/setup/system-packages.ts --list    print every package, one per line, and why
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { postgresBinDir } from "../helpers/postgres-server.ts";

export interface SystemNeed {
  /** The Debian package that brings it. */
  pkg: string;
  /** What the tests use it for. */
  why: string;
  present(): boolean;
}

const onPath = (...names: string[]) => () => names.every((n) => Bun.which(n) !== null);
const file = (path: string) => () => existsSync(path);

export const SYSTEM_NEEDS: SystemNeed[] = [
  { pkg: "postgresql", why: "initdb and postgres: the run's own PostgreSQL cluster in a temporary folder", present: () => postgresBinDir() !== undefined },
  { pkg: "mosquitto", why: "private brokers on ephemeral ports (the package also makes the mosquitto user)", present: () => Bun.which("mosquitto") !== null || existsSync("/usr/sbin/mosquitto") },
  { pkg: "prometheus", why: "promtool and Prometheus in agent mode, real remote-write clients; Prometheus beside the agent's scraping", present: onPath("promtool", "prometheus") },
  { pkg: "prometheus-node-exporter", why: "node_exporter, scraped by the agent and by Prometheus (inputs tests, bench/inputs-scrape.ts)", present: onPath("prometheus-node-exporter") },
  { pkg: "chromium", why: "the web console's browser tests (playwright-core drives it)", present: file("/usr/bin/chromium") },
  { pkg: "openssl", why: "test certificates", present: onPath("openssl") },
  { pkg: "qemu-user", why: "runs the arm64 release binaries (qemu-aarch64)", present: onPath("qemu-aarch64") },
  { pkg: "libc6-arm64-cross", why: "the arm64 C library those binaries load", present: file("/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1") },
  { pkg: "dpkg", why: "builds and inspects the .deb packages", present: onPath("dpkg-deb") },
  { pkg: "fakeroot", why: "installs the packages into a scratch root", present: onPath("fakeroot") },
  { pkg: "lintian", why: "checks the packages", present: onPath("lintian") },
  { pkg: "systemd", why: "systemd-analyze: the exposure score of the units", present: onPath("systemd-analyze") },
  { pkg: "rsyslog", why: "rsyslogd on its own socket: a real system log for the agent's syslog actions", present: onPath("rsyslogd") },
];

/** The packages still missing, in the table's order. */
export function missingPackages(needs: SystemNeed[] = SYSTEM_NEEDS): string[] {
  return needs.filter((n) => !n.present()).map((n) => n.pkg);
}

/** The one line a user runs as root: the package lists first (a fresh machine may have none). */
export function installCommand(pkgs: string[]): string {
  return `apt-get update && apt-get install -y --no-install-recommends ${pkgs.join(" ")}`;
}

/** Installs with apt-get, services kept from starting (policy-rc.d: no Prometheus on 9090, no PostgreSQL on 5432). */
function aptInstall(pkgs: string[]): void {
  const policy = "/usr/sbin/policy-rc.d";
  const madePolicy = !existsSync(policy);
  if (madePolicy) writeFileSync(policy, "#!/bin/sh\n# npm test: no service starts while it installs packages\nexit 101\n", { mode: 0o755 });
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    for (const argv of [
      ["apt-get", "update", "-qq"],
      ["apt-get", "install", "-y", "-qq", "--no-install-recommends", ...pkgs],
    ]) {
      const r = Bun.spawnSync(argv, { env, stdout: "ignore", stderr: "pipe" });
      if (r.exitCode !== 0) throw new Error(`${argv.join(" ")} failed: ${r.stderr.toString().trim().split("\n").slice(-2).join(" | ")}`);
    }
  } finally {
    if (madePolicy) rmSync(policy, { force: true });
  }
}

function main(): number {
  if (process.argv.includes("--list")) {
    for (const n of SYSTEM_NEEDS) process.stdout.write(`${n.pkg.padEnd(18)} ${n.why}\n`);
    return 0;
  }
  const missing = missingPackages();
  if (missing.length === 0) return 0;
  if (process.getuid?.() !== 0 || !Bun.which("apt-get")) {
    process.stderr.write(`error: the tests need Debian packages that are missing; install them as root with: ${installCommand(missing)}\n`);
    return 1;
  }
  process.stdout.write(`npm test: installing ${missing.join(" ")} (Debian packages the tests use; once)\n`);
  const t0 = Date.now();
  try {
    aptInstall(missing);
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    return 1;
  }
  const still = missingPackages();
  if (still.length > 0) {
    process.stderr.write(`error: still missing after apt-get: ${still.join(" ")}\n`);
    return 1;
  }
  process.stdout.write(`npm test: installed in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  return 0;
}

if (import.meta.main) process.exit(main());
