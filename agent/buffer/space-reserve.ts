import { closeSync, existsSync, openSync, statfsSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "../../src/log/logger.ts";

const BLOCK = 1024 * 1024;

/**
 * Disk space the agent holds back for itself: a file of zeros in its data folder. On a full
 * disk even deleting rows needs room (SQLite's write-ahead log grows before it shrinks), so
 * the agent could not delete the points the collector acknowledged, and stayed stuck. When the
 * disk fills, the agent deletes this file, which lets those deletes (and the drops of old
 * points) commit; the file is written again once the disk has room for it twice over.
 */
export class SpaceReserve {
  constructor(
    readonly path: string,
    readonly bytes: number,
    private readonly log: Logger,
  ) {}

  get held(): boolean {
    return this.bytes > 0 && existsSync(this.path);
  }

  /**
   * Makes sure the reserve is in place: writes it when it is missing and the disk has room for
   * twice its size. True when the reserve is in place (or none is configured).
   */
  restore(): boolean {
    if (this.bytes <= 0 || this.held) return true;
    const fs = statfsSync(dirname(this.path));
    if (fs.bavail * fs.bsize < 2 * this.bytes) return false;
    const zeros = new Uint8Array(Math.min(BLOCK, this.bytes));
    let fd: number | undefined;
    try {
      fd = openSync(this.path, "w");
      for (let left = this.bytes; left > 0; left -= zeros.length) writeSync(fd, zeros, 0, Math.min(zeros.length, left));
    } catch (e) {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      this.drop();
      this.log.warn("could not write the disk space reserve", { path: this.path, err: (e as Error).message });
      return false;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    return true;
  }

  /** Frees the reserve for the buffer's use; true when there was one to free. */
  release(): boolean {
    if (!this.held) return false;
    this.drop();
    this.log.warn("released the disk space reserve so that acknowledged points can still be deleted", { bytes: this.bytes });
    return true;
  }

  private drop(): void {
    try {
      unlinkSync(this.path);
    } catch {}
  }
}
