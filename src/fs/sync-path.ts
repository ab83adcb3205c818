import { closeSync, fsyncSync, openSync } from "node:fs";

/** Syncs a file, or a folder's entries, to disk (a new file's name needs its folder synced). */
export function syncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
