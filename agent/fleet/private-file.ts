import { closeSync, fsyncSync, openSync, renameSync, writeSync } from "node:fs";
import { PRIVATE_FILE } from "../../src/fs/private-files.ts";

/** Writes a file readable by its owner only, whole or not at all (a crash leaves the old one or the new one). */
export function writePrivateFile(path: string, text: string): void {
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, "w", PRIVATE_FILE);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}
