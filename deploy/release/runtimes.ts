/**
 * The Bun runtimes the release embeds in its single-file binaries, one per target, from the npm
 * packages pinned in package.json's optionalDependencies (checked against package-lock.json's
 * integrity). npm installs only the host's package, and the `bun` package empties it when it
 * installs itself, so `npm ci` runs this script (postinstall) to unpack every target's package
 * into node_modules/.outpost-runtimes/ with `npm pack`. After that, `npm run release` needs no
 * network: `bun build --compile --compile-executable-path` takes the runtime from there.
 *
 *   bun deploy/release/runtimes.ts               fetch what is missing (fails when it cannot)
 *   bun deploy/release/runtimes.ts --if-possible the same, but only warns (npm ci must not fail offline)
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "../..");
const STORE = join(ROOT, "node_modules/.outpost-runtimes");

/** Release targets: the Bun target name and the npm package of its runtime. */
export const TARGETS = {
  "linux-x64": { bunTarget: "bun-linux-x64", pkg: "@oven/bun-linux-x64", debArch: "amd64", elfMachine: 0x3e },
  "linux-arm64": { bunTarget: "bun-linux-arm64", pkg: "@oven/bun-linux-aarch64", debArch: "arm64", elfMachine: 0xb7 },
} as const;
export type Target = keyof typeof TARGETS;

interface Pins {
  version: string;
  integrity: string;
}

/** The pinned version (package.json) and integrity (package-lock.json) of a runtime package. */
export function pinOf(pkg: string): Pins {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { optionalDependencies?: Record<string, string>; dependencies?: Record<string, string> };
  const version = manifest.optionalDependencies?.[pkg];
  if (!version || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`${pkg} must be pinned to an exact version in package.json's optionalDependencies`);
  if (manifest.dependencies?.bun !== version) throw new Error(`${pkg} ${version} must be the version of the bun dependency (${manifest.dependencies?.bun}), which builds with it`);
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string; integrity?: string }> };
  const entry = lock.packages[`node_modules/${pkg}`];
  if (entry?.version !== version || !entry.integrity) throw new Error(`package-lock.json has no ${pkg}@${version}: run npm install`);
  return { version, integrity: entry.integrity };
}

function dirOf(pkg: string): string {
  return join(STORE, pkg.replace("/", "+"));
}

/** The runtime's executable for a target; throws with what to run when it is missing. */
export function runtimeBinary(target: Target): string {
  const { pkg } = TARGETS[target];
  const { version } = pinOf(pkg);
  const bin = join(dirOf(pkg), "package/bin/bun");
  const installed = existsSync(join(dirOf(pkg), "package/package.json")) ? (JSON.parse(readFileSync(join(dirOf(pkg), "package/package.json"), "utf8")) as { version: string }).version : undefined;
  if (installed !== version || !existsSync(bin)) throw new Error(`the ${target} runtime (${pkg}@${version}) is not unpacked: run npm ci, or npm run fetch-runtimes`);
  return bin;
}

function sri(path: string): string {
  return `sha512-${createHash("sha512").update(readFileSync(path)).digest("base64")}`;
}

/** Unpacks the runtime package of `target` unless it is there already. */
export function fetchRuntime(target: Target): string {
  try {
    return runtimeBinary(target);
  } catch {}
  const { pkg } = TARGETS[target];
  const pin = pinOf(pkg);
  const work = mkdtempSync(join(tmpdir(), "outpost-runtime-"));
  try {
    const pack = Bun.spawnSync(["npm", "pack", `${pkg}@${pin.version}`, "--pack-destination", work, "--json", "--silent"], { stdout: "pipe", stderr: "pipe" });
    if (pack.exitCode !== 0) throw new Error(`npm pack ${pkg}@${pin.version} failed: ${pack.stderr.toString().trim().split("\n").at(-1)}`);
    const filename = (JSON.parse(pack.stdout.toString()) as { filename: string }[])[0]?.filename;
    if (!filename) throw new Error(`npm pack ${pkg}@${pin.version} named no file`);
    const tgz = join(work, filename);
    const got = sri(tgz);
    if (got !== pin.integrity) throw new Error(`${pkg}@${pin.version}: integrity ${got} differs from package-lock.json's ${pin.integrity}`);
    const into = join(work, "unpacked");
    mkdirSync(into);
    const tar = Bun.spawnSync(["tar", "-xzf", tgz, "-C", into], { stderr: "pipe" });
    if (tar.exitCode !== 0) throw new Error(`unpacking ${filename}: ${tar.stderr.toString().trim()}`);
    rmSync(dirOf(pkg), { recursive: true, force: true });
    mkdirSync(STORE, { recursive: true });
    renameSync(into, dirOf(pkg));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return runtimeBinary(target);
}

/** Whether npm runs this for an install without dev dependencies (`npm ci --omit=dev`): no release is built there. */
const productionInstall = () => (process.env.npm_config_omit ?? "").split(/[\s,]+/).includes("dev");

if (import.meta.main) {
  const lenient = process.argv.includes("--if-possible");
  if (lenient && productionInstall()) {
    console.log("runtimes: not fetched (an install without dev dependencies; npm run fetch-runtimes before a release)");
    process.exit(0);
  }
  let failed = false;
  for (const target of Object.keys(TARGETS) as Target[]) {
    try {
      const bin = fetchRuntime(target);
      console.log(`runtime ${target}: ${bin.slice(ROOT.length + 1)}`);
    } catch (e) {
      failed = true;
      console.error(`${lenient ? "warning" : "error"}: runtime ${target}: ${(e as Error).message}${lenient ? " (npm run release will need it: npm run fetch-runtimes)" : ""}`);
    }
  }
  if (failed && !lenient) process.exit(1);
}
