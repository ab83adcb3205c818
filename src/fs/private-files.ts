import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Bits that let the group or others in. */
const OTHERS = 0o077;
export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;

/**
 * Creates a folder (and its missing parents) that only its owner may enter, whatever the umask;
 * an existing one is left as it is (tightenTree decides about it).
 */
export function makePrivateDir(path: string): void {
  let existed = true;
  try {
    statSync(path);
  } catch {
    existed = false;
  }
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR });
  if (!existed) chmodSync(path, PRIVATE_DIR);
}

/**
 * Makes sure a file exists and only its owner may read or write it, whatever the umask: a
 * database file created here first makes SQLite give its -wal and -shm files the same mode.
 */
export function makePrivateFile(path: string): void {
  closeSync(openSync(path, "a", PRIVATE_FILE));
  if ((statSync(path).mode & 0o777) !== PRIVATE_FILE) chmodSync(path, PRIVATE_FILE);
}

/**
 * Takes group and other users' access away from a folder and everything in it: folders become
 * 0700, files 0600 (symbolic links are not followed). Returns the paths changed, relative to
 * `root` ("." for the folder itself), so the caller can say so once.
 */
export function tightenTree(root: string): string[] {
  const changed: string[] = [];
  const visit = (path: string) => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      if (st.mode & OTHERS) {
        chmodSync(path, PRIVATE_DIR);
        changed.push(relative(root, path) || ".");
      }
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (st.isFile() && st.mode & OTHERS) {
      chmodSync(path, (st.mode & 0o700) | PRIVATE_FILE);
      changed.push(relative(root, path));
    }
  };
  visit(root);
  return changed;
}
