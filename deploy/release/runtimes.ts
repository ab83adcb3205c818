/**
 * What the release embeds in its single-file binaries for each target: the Bun runtime, from the
 * npm packages pinned in package.json's optionalDependencies, and the native addons of the
 * collector's libraries (snappy's napi-rs build), at the versions package-lock.json records; each
 * checked against package-lock.json's integrity. npm installs only the host's packages (and the
 * `bun` package empties its runtime package when it installs itself), so `npm ci` runs this
 * script (postinstall) to unpack every target's packages into node_modules/.outpost-runtimes/
 * with `npm pack`. After that, `npm run release` needs no network: `bun build --compile
 * --compile-executable-path` takes the runtime from there, and the addon is bundled from there.
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

/** Release targets: the Bun target name, the npm package of its runtime and of its snappy addon. */
export const TARGETS = {
  "linux-x64": {
    bunTarget: "bun-linux-x64",
    pkg: "@oven/bun-linux-x64",
    snappy: { pkg: "@napi-rs/snappy-linux-x64-gnu", file: "snappy.linux-x64-gnu.node" },
    debArch: "amd64",
    elfMachine: 0x3e,
  },
  "linux-arm64": {
    bunTarget: "bun-linux-arm64",
    pkg: "@oven/bun-linux-aarch64",
    snappy: { pkg: "@napi-rs/snappy-linux-arm64-gnu", file: "snappy.linux-arm64-gnu.node" },
    debArch: "arm64",
    elfMachine: 0xb7,
  },
} as const;
export type Target = keyof typeof TARGETS;

interface Pins {
  version: string;
  integrity: string;
}

/** The version and integrity package-lock.json records for a package (`version`: the one it must be). */
function lockPin(pkg: string, version?: string): Pins {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as { packages: Record<string, { version?: string; integrity?: string }> };
  const entry = lock.packages[`node_modules/${pkg}`];
  if (!entry?.version || !entry.integrity || (version !== undefined && entry.version !== version)) throw new Error(`package-lock.json has no ${pkg}${version ? `@${version}` : ""}: run npm install`);
  return { version: entry.version, integrity: entry.integrity };
}

/** The pinned version (package.json) and integrity (package-lock.json) of a runtime package. */
export function pinOf(pkg: string): Pins {
  const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { optionalDependencies?: Record<string, string>; dependencies?: Record<string, string> };
  const version = manifest.optionalDependencies?.[pkg];
  if (!version || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`${pkg} must be pinned to an exact version in package.json's optionalDependencies`);
  if (manifest.dependencies?.bun !== version) throw new Error(`${pkg} ${version} must be the version of the bun dependency (${manifest.dependencies?.bun}), which builds with it`);
  return lockPin(pkg, version);
}

function dirOf(pkg: string): string {
  return join(STORE, pkg.replace("/", "+"));
}

/** A file of an unpacked package, when the package is there at `version`; else an error saying what to run. */
function unpackedFile(pkg: string, version: string, file: string, what: string): string {
  const path = join(dirOf(pkg), "package", file);
  const manifest = join(dirOf(pkg), "package/package.json");
  const installed = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version : undefined;
  if (installed !== version || !existsSync(path)) throw new Error(`${what} (${pkg}@${version}) is not unpacked: run npm ci, or npm run fetch-runtimes`);
  return path;
}

/** The runtime's executable for a target; throws with what to run when it is missing. */
export function runtimeBinary(target: Target): string {
  const { pkg } = TARGETS[target];
  return unpackedFile(pkg, pinOf(pkg).version, "bin/bun", `the ${target} runtime`);
}

/** The target's snappy addon (the .node file the collector's binary embeds). */
export function snappyAddon(target: Target): string {
  const { pkg, file } = TARGETS[target].snappy;
  return unpackedFile(pkg, lockPin(pkg).version, file, `the ${target} snappy addon`);
}

function sri(path: string): string {
  return `sha512-${createHash("sha512").update(readFileSync(path)).digest("base64")}`;
}

/** Unpacks `pkg` at `pin` into the store with npm pack, checking its integrity. */
function unpack(pkg: string, pin: Pins): void {
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
}

/** Unpacks the runtime package and the addons of `target` unless they are there already; the runtime's path. */
export function fetchRuntime(target: Target): string {
  const { pkg, snappy } = TARGETS[target];
  try {
    runtimeBinary(target);
  } catch {
    unpack(pkg, pinOf(pkg));
  }
  try {
    snappyAddon(target);
  } catch {
    unpack(snappy.pkg, lockPin(snappy.pkg));
  }
  snappyAddon(target);
  return runtimeBinary(target);
}

/** Whether npm runs this for an install without dev dependencies (`npm ci --omit=dev`): no release is built there. */
const productionInstall = () => (process.env.npm_config_omit ?? "").split(/[\s,]+/).includes("dev");

if (import.meta.main) {
  const lenient = process.argv.includes("--if-possible");
  if (lenient && productionInstall()) {
    console.log("runtimes: not fetched (install without dev dependencies; npm run fetch-runtimes before a release)");
    process.exit(0);
  }
  let failed = false;
  for (const target of Object.keys(TARGETS) as Target[]) {
    try {
      const bin = fetchRuntime(target);
      console.log(`runtime ${target}: ${bin.slice(ROOT.length + 1)}, snappy addon: ${snappyAddon(target).slice(ROOT.length + 1)}`);
    } catch (e) {
      failed = true;
      console.error(`${lenient ? "warning" : "error"}: runtime ${target}: ${(e as Error).message}${lenient ? " (npm run release will need it: npm run fetch-runtimes)" : ""}`);
    }
  }
  if (failed && !lenient) process.exit(1);
}
