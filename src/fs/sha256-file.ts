import { createHash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";

/** SHA-256 of a file in hex, read in 1 MiB pieces (databases and release files may be larger than memory). */
export function sha256File(path: string): string {
  const h = createHash("sha256");
  const buf = Buffer.allocUnsafe(1024 * 1024);
  const fd = openSync(path, "r");
  try {
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest("hex");
}
