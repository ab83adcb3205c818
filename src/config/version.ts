import { spawnSync } from "node:child_process";
import pkg from "../../package.json" with { type: "json" };

/*
 * Build identity. `npm run release` bakes the commit and build date in with `bun build
 * --define`; run from source, the commit is read from git (when there is one) at start-up.
 */
declare const OUTPOST_BUILD_COMMIT: string;
declare const OUTPOST_BUILD_DATE: string;
/** Baked in by the release build too: a binary says the version it was built as (an upgrade's test builds a newer one). */
declare const OUTPOST_BUILD_VERSION: string;

export const OUTPOST_VERSION: string = typeof OUTPOST_BUILD_VERSION === "string" ? OUTPOST_BUILD_VERSION : pkg.version;

export interface BuildInfo {
  version: string;
  /** Short git commit, "-dirty" when built from a changed tree; "unknown" without git. */
  commit: string;
  /** ISO date of the build; "source" when run from source. */
  built: string;
  runtime: string;
  platform: string;
}

function commitFromGit(): string {
  try {
    const dir = import.meta.dirname;
    const rev = spawnSync("git", ["rev-parse", "--short=12", "HEAD"], { cwd: dir, encoding: "utf8", timeout: 2000 });
    if (rev.status !== 0) return "unknown";
    const dirty = spawnSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: dir, encoding: "utf8", timeout: 2000 });
    return `${rev.stdout.trim()}${dirty.status === 0 && dirty.stdout.trim() !== "" ? "-dirty" : ""}`;
  } catch {
    return "unknown";
  }
}

export function buildInfo(): BuildInfo {
  const baked = typeof OUTPOST_BUILD_COMMIT === "string";
  return {
    version: OUTPOST_VERSION,
    commit: baked ? OUTPOST_BUILD_COMMIT : commitFromGit(),
    built: typeof OUTPOST_BUILD_DATE === "string" ? OUTPOST_BUILD_DATE : "source",
    runtime: `bun ${Bun.version}`,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** The line `--version` prints, e.g. "outpost-agent 0.1.0 (commit 1a2b3c4d5e6f, built 2026-11-24, bun 1.4.5, linux-arm64)". */
export function versionLine(program: string, b: BuildInfo = buildInfo()): string {
  const built = b.built === "source" ? "run from source" : `built ${b.built}`;
  return `${program} ${b.version} (commit ${b.commit}, ${built}, ${b.runtime}, ${b.platform})`;
}
