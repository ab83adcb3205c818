/**
 * Where a collector tells agents on the same machine, run by the same user, which broker it
 * listens on: a small file in the user's private runtime folder, `$XDG_RUNTIME_DIR/outpost/
 * collector.json` (systemd makes /run/user/UID, mode 0700), else `$TMPDIR/outpost-UID/
 * collector.json` in a folder this user made with mode 0700. An agent started without --broker
 * reads it, so the quick start works when the collector had to take another port.
 *
 * Another local user must not be able to send an agent elsewhere: the folder and the file are
 * trusted only when they belong to this user, are not links, and nobody else can write to them
 * (a folder someone else made in /tmp first is refused, as tmux and ssh-agent refuse theirs);
 * the file names the collector's process, which must be alive; and its broker must be on
 * loopback. docs/install.md, "The collector on the same machine".
 */
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { isLoopbackHost } from "../net/loopback.ts";

export interface LocalCollector {
  /** mqtt://127.0.0.1:PORT: the embedded broker's plain listener. */
  broker: string;
  /** The HTTP interfaces and the console, e.g. http://127.0.0.1:8080 */
  http: string;
  pid: number;
}

const uid = () => process.getuid?.() ?? -1;

/** The file for this user (it need not exist). */
export function localCollectorFile(env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime && isAbsolute(runtime)) return join(runtime, "outpost", "collector.json");
  return join(tmpdir(), `outpost-${uid()}`, "collector.json");
}

/** Why `path` (a folder or a file) is not to be trusted, or undefined when it is. */
function untrusted(path: string, kind: "folder" | "file"): string | undefined {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return `${path} is a symbolic link`;
  if (kind === "folder" ? !st.isDirectory() : !st.isFile()) return `${path} is not a ${kind}`;
  if (st.uid !== uid()) return `${path} belongs to user ${st.uid}, not to this user (${uid()})`;
  const open = kind === "folder" ? st.mode & 0o077 : st.mode & 0o022;
  if (open !== 0) return `${path} is open to other users (mode ${(st.mode & 0o777).toString(8)})`;
  return undefined;
}

/** Whether `pid` is a live process of this user (a reused pid of someone else's is not the collector). */
function aliveAndOurs(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return statSync(`/proc/${pid}`).uid === uid();
  } catch {
    return true;
  }
}

/** The folder, made private to this user when missing; throws when one exists that is not safe. */
function privateFolder(file: string): string {
  const dir = join(file, "..");
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
  }
  const why = untrusted(dir, "folder");
  if (why) throw new Error(why);
  return dir;
}

/**
 * Writes the file (0600, atomically) for this collector; `remove` deletes it if it still names
 * this process. Throws with the reason when the folder cannot be made safe.
 */
export function publishLocalCollector(info: Omit<LocalCollector, "pid">, file = localCollectorFile()): { file: string; remove(): void } {
  privateFolder(file);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ ...info, pid: process.pid })}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return {
    file,
    remove() {
      try {
        if ((JSON.parse(readFileSync(file, "utf8")) as LocalCollector).pid === process.pid) rmSync(file, { force: true });
      } catch {}
    },
  };
}

export type LocalCollectorLookup = { found: LocalCollector; file: string } | { problem: string; file: string } | undefined;

/** The collector this user runs on this machine: found, refused with a reason, or none (undefined). */
export function findLocalCollector(file = localCollectorFile()): LocalCollectorLookup {
  let text: string;
  try {
    const why = untrusted(join(file, ".."), "folder") ?? untrusted(file, "file");
    if (why) return { problem: why, file };
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return { problem: (e as Error).message, file };
  }
  let c: LocalCollector;
  try {
    c = JSON.parse(text) as LocalCollector;
  } catch {
    return { problem: `${file} is not JSON`, file };
  }
  if (typeof c.pid !== "number" || typeof c.broker !== "string" || typeof c.http !== "string") return { problem: `${file} does not name a collector`, file };
  // A collector that ended without removing it (killed): not there any more.
  if (!aliveAndOurs(c.pid)) return undefined;
  let host: string;
  try {
    const u = new URL(c.broker);
    if (u.protocol !== "mqtt:" || !u.port) throw new Error();
    host = u.hostname;
  } catch {
    return { problem: `${file} names no mqtt://HOST:PORT broker`, file };
  }
  if (!isLoopbackHost(host)) return { problem: `${file} names a broker off this machine (${c.broker})`, file };
  return { found: c, file };
}
