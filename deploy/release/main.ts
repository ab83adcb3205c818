/**
 * `npm run release`: single-file binaries of the agent and the collector for linux-x64 and
 * linux-arm64, a tarball and a .deb package of each, and SHA-256 sums, in dist/release/ (or
 * --out DIR). Offline: the Bun runtimes come from the npm packages pinned in package.json,
 * unpacked by `npm ci` (runtimes.ts). docs/install.md says what each file is.
 *
 *   bun deploy/release/main.ts [--out DIR] [--targets linux-x64,linux-arm64] [--deb-compression gzip|xz|zstd]
 *                              [--maintainer 'Name <address>']   (default: DEBFULLNAME/DEBEMAIL, else git's identity)
 */
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { writeOnSiteDist } from "../../agent/http/on-site/dist.ts";
import { writeConsoleDist } from "../../collector/http/console/dist.ts";
import { compile, elfMachine, type Program, PROGRAMS } from "./binaries.ts";
import { maintainerOf, releaseInfo } from "./build-info.ts";
import { buildDeb, debFileName, packageName, SHIPPED_DOCS, stageDeb } from "./deb.ts";
import { ROOT, TARGETS, type Target } from "./runtimes.ts";
import { sha256Sums, tarball } from "./archives.ts";

interface Options {
  out: string;
  maintainer?: string;
  targets: Target[];
  debCompression: "gzip" | "xz" | "zstd";
}

function parseArgs(argv: string[]): Options {
  const o: Options = { out: join(ROOT, "dist/release"), targets: Object.keys(TARGETS) as Target[], debCompression: "gzip" };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === "--out" && value) o.out = resolve(value);
    else if (flag === "--targets" && value) o.targets = value.split(",").map((t) => (t in TARGETS ? (t as Target) : fail(`unknown target ${t} (${Object.keys(TARGETS).join(", ")})`)));
    else if (flag === "--deb-compression" && (value === "gzip" || value === "xz" || value === "zstd")) o.debCompression = value;
    else if (flag === "--maintainer" && value) o.maintainer = value;
    else fail(`unknown argument ${flag} (see the comment at the top of deploy/release/main.ts)`);
    i++;
  }
  return o;
}

function fail(msg: string): never {
  process.stderr.write(`error: ${msg}\n`);
  process.exit(2);
}

/** Runs the jobs two at a time (two cores are common on build machines, and enough). */
async function inParallel<T>(jobs: (() => Promise<T>)[], width = 2): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) {
        const i = next++;
        results[i] = await jobs[i]!();
      }
    }),
  );
  return results;
}

const mib = (path: string) => `${(statSync(path).size / 1024 ** 2).toFixed(1)} MiB`;

export async function release(o: Options): Promise<string[]> {
  const info = releaseInfo();
  // Before anything is built: a release without one stops at once.
  const maintainer = maintainerOf(o.maintainer);
  const started = Date.now();
  console.log(`release ${info.version} (commit ${info.commit}, built ${info.date}, maintainer ${maintainer}) → ${o.out}`);
  rmSync(o.out, { recursive: true, force: true });
  mkdirSync(o.out, { recursive: true });
  // The web console's files, which the collector's binaries embed, and the agent's on-site view (docs/console.md).
  const ui = await writeConsoleDist();
  console.log(`  console: ${ui.files.join(", ")} (${ui.bytes} bytes, ${ui.ms} ms)`);
  const site = await writeOnSiteDist();
  console.log(`  on-site console: ${site.files.join(", ")} (${site.bytes} bytes, ${site.ms} ms)`);
  const work = join(o.out, ".work");
  const builds = o.targets.flatMap((target) => (Object.keys(PROGRAMS) as Program[]).map((program) => ({ program, target })));
  const artifacts = await inParallel(
    builds.map(({ program, target }) => async () => {
      const t0 = Date.now();
      const name = `${packageName(program)}-${info.version}-${target}`;
      const dir = join(work, name);
      mkdirSync(dir, { recursive: true });
      const binary = join(dir, packageName(program));
      await compile(program, target, info, binary);
      const machine = elfMachine(binary);
      if (machine !== TARGETS[target].elfMachine) throw new Error(`${binary} is for machine ${machine}, not ${target}`);
      copyFileSync(binary, join(o.out, name));
      // The tarball: the binary with its unit, configuration and documentation.
      copyFileSync(join(ROOT, `deploy/systemd/${packageName(program)}.service`), join(dir, `${packageName(program)}.service`));
      copyFileSync(join(ROOT, `deploy/config/${program}.toml`), join(dir, `${program}.example.toml`));
      for (const d of SHIPPED_DOCS) copyFileSync(join(ROOT, "docs", d), join(dir, d));
      const tgz = join(o.out, `${name}.tar.gz`);
      await tarball(work, name, tgz);
      const stage = join(work, `deb-${name}`);
      stageDeb(program, target, info, maintainer, binary, stage);
      const deb = join(o.out, debFileName(program, info.version, target));
      await buildDeb(stage, deb, o.debCompression);
      console.log(`  ${name}: binary ${mib(binary)}, ${basename(tgz)} ${mib(tgz)}, ${basename(deb)} ${mib(deb)} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      return [join(o.out, name), tgz, deb];
    }),
  );
  rmSync(work, { recursive: true, force: true });
  const files = artifacts.flat();
  writeFileSync(join(o.out, "SHA256SUMS"), sha256Sums(files));
  console.log(`  SHA256SUMS: ${files.length} files; done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return files;
}

if (import.meta.main) {
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(join(ROOT, "node_modules"))) fail("run npm ci first");
  try {
    await release(o);
  } catch (e) {
    fail((e as Error).message);
  }
}
