import { basename } from "node:path";
import { sha256File } from "../../src/fs/sha256-file.ts";

/** tar.gz of `dir` (a folder of `cwd`), owned by root in the archive. */
export async function tarball(cwd: string, dir: string, out: string): Promise<void> {
  const p = Bun.spawn(["tar", "--owner=0", "--group=0", "--numeric-owner", "-czf", out, "-C", cwd, dir], { stdout: "pipe", stderr: "pipe" });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  if (code !== 0) throw new Error(`tar ${out} failed: ${err.trim()}`);
}

/** SHA256SUMS as `sha256sum -c` reads it: the files by their names in the release folder. */
export function sha256Sums(files: string[]): string {
  return files.map((f) => `${sha256File(f)}  ${basename(f)}\n`).join("");
}
