import { join } from "node:path";

/** Where a rollout's binaries live: <data-dir>/bin, written by the agent's own user (the package's /usr/bin is not). */
export function binaryPaths(dataDir: string) {
  const dir = join(dataDir, "bin");
  const current = join(dir, "outpost-agent");
  return {
    dir,
    /** The binary a rollout installed, which the started binary hands over to. */
    current,
    /** The one it replaced, kept. */
    previous: `${current}.previous`,
    /** A verified download on probation. */
    next: `${current}.next`,
    /** A download in progress (not executable until verified). */
    download: `${current}.download`,
  };
}

/** Whether this process is a single-file build (only such a binary can be replaced by another). */
export function isCompiled(): boolean {
  return Bun.main.startsWith("/$bunfs/");
}

/** The arguments the program was started with (a compiled binary's argv[1] is its own entry point). */
export function programArgs(): string[] {
  return process.argv.slice(2);
}
