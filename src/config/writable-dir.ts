import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { resolve } from "node:path";
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
 * Creates the folder if needed and checks that this process may write in it, so that a data
 * folder the program cannot use is one clear start-up error naming the option, not a SQLite
 * error later. Returns the absolute path.
 */
export function ensureWritableDir(path: string, option: string): string {
  const abs = resolve(path);
  try {
    mkdirSync(abs, { recursive: true });
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
  return abs;
}
