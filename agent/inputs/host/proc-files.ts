import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Read access to a procfs tree. The root is configurable so that an agent in a container can
 * read the host's /proc mounted elsewhere, and tests can read captured fixture trees.
 */
export interface ProcFiles {
  /** The text of a file below the root, or undefined if it cannot be read. */
  read(relative: string): string | undefined;
  /** Entry names of a directory below the root (empty if it cannot be read). */
  list(relative: string): string[];
}

export function procFiles(root = "/proc"): ProcFiles {
  return {
    read(relative) {
      try {
        // Sync reads: procfs files are generated in memory and read in microseconds.
        return readFileSync(join(root, relative), "utf8");
      } catch {
        return undefined;
      }
    },
    list(relative) {
      try {
        return readdirSync(join(root, relative));
      } catch {
        return [];
      }
    },
  };
}
