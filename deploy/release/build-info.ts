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

const MAINTAINER_FORM = /^[^<>@\n]+ <[^<>@\s]+@[^<>@\s]+\.[^<>@\s]+>$/;

/**
 * The packages' maintainer, as Debian's own tools find it: `--maintainer`, else DEBFULLNAME and
 * DEBEMAIL, else the git identity of the checkout (user.name, user.email). None is an error:
 * a made-up address would send users' reports nowhere.
 */
export function maintainerOf(given?: string, env: NodeJS.ProcessEnv = process.env): string {
  const name = env.DEBFULLNAME ?? git(["config", "user.name"]);
  const email = env.DEBEMAIL ?? git(["config", "user.email"]);
  const m = given ?? (name && email ? `${name} <${email}>` : undefined);
  if (!m) throw new Error("the packages need a maintainer: pass --maintainer 'Name <address>', set DEBFULLNAME and DEBEMAIL (as for dch), or git config user.name and user.email");
  if (!MAINTAINER_FORM.test(m)) throw new Error(`maintainer "${m}" is not "Name <address>"`);
  return m;
}

export function releaseInfo(): ReleaseInfo {
  const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  const rev = git(["rev-parse", "--short=12", "HEAD"]);
  const dirty = rev !== undefined && (git(["status", "--porcelain", "--untracked-files=no"]) ?? "") !== "";
  const epoch = process.env.SOURCE_DATE_EPOCH;
  const date = (epoch && /^\d+$/.test(epoch) ? new Date(Number(epoch) * 1000) : new Date()).toISOString().replace(/\.\d{3}Z$/, "Z");
  return { version, commit: rev ? `${rev}${dirty ? "-dirty" : ""}` : "unknown", date };
}
