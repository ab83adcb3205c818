import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./runtimes.ts";

export interface ReleaseInfo {
  version: string;
  /** Short commit, "-dirty" when the tree has uncommitted changes; "unknown" outside git. */
  commit: string;
  /** ISO date of the build: SOURCE_DATE_EPOCH when set (reproducible builds), else now. */
  date: string;
}

function git(args: string[]): string | undefined {
  const r = Bun.spawnSync(["git", ...args], { cwd: ROOT, stdout: "pipe", stderr: "ignore" });
  return r.exitCode === 0 ? r.stdout.toString().trim() : undefined;
}

export function releaseInfo(): ReleaseInfo {
  const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  const rev = git(["rev-parse", "--short=12", "HEAD"]);
  const dirty = rev !== undefined && (git(["status", "--porcelain", "--untracked-files=no"]) ?? "") !== "";
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const date = (epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date()).toISOString().replace(/\.\d{3}Z$/, "Z");
  return { version, commit: rev ? `${rev}${dirty ? "-dirty" : ""}` : "unknown", date };
}
