import { accessSync, constants, statSync } from "node:fs";
import { resolve } from "node:path";
import { makePrivateDir, tightenTree } from "../fs/private-files.ts";
import type { Logger } from "../log/logger.ts";
import { OptionError } from "./option-error.ts";

function reason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EROFS") return "read-only file system";
  if (code === "ENOTDIR") return "a part of the path is a file";
  if (code === "ENOSPC") return "no space left on the device";
  return (e as Error).message;
}

/**
 * Creates the folder if needed (0700, whatever the umask: it holds every tenant's data) and
 * checks that this process may write in it, so that a data folder the program cannot use is
 * one clear start-up error naming the option, not a SQLite error later. With `log`, an existing
 * folder, and whatever is in it, that other users could read is made private, said in one
 * line. Returns the absolute path.
 */
export function ensureWritableDir(path: string, option: string, log?: Logger): string {
  const abs = resolve(path);
  try {
    makePrivateDir(abs);
  } catch (e) {
    throw new OptionError(`${option} ${abs}: cannot create the folder (${reason(e)})`);
  }
  try {
    if (!statSync(abs).isDirectory()) throw new OptionError(`${option} ${abs}: not a folder`);
    accessSync(abs, constants.W_OK | constants.X_OK);
  } catch (e) {
    if (e instanceof OptionError) throw e;
    throw new OptionError(`${option} ${abs}: not writable by this user (${reason(e)})`);
  }
  if (log) {
    const changed = tightenTree(abs);
    if (changed.length > 0) {
      log.warn("the data folder was open to other users: it and its files are now private (folders 0700, files 0600)", {
        folder: abs,
        changed: changed.length,
        examples: changed.slice(0, 5).join(","),
      });
    }
  }
  return abs;
}
