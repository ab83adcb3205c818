import { closeSync, existsSync, openSync, statfsSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "../../src/log/logger.ts";

const BLOCK = 1024 * 1024;
/** The reserve never takes more than this share of the filesystem it is on. */
const FILESYSTEM_SHARE = 8;

/**
 * Disk space the agent holds back for itself: a file of zeros in its data folder. On a full
 * disk even deleting rows needs room (SQLite's write-ahead log must be copied into the
 * database before it can be reused), so the agent could not delete the points the collector
 * acknowledged, and stayed stuck. When the disk fills, the agent deletes this file, which lets
 * the pending copy and those deletes commit; the file is written again once the disk has room
 * for it twice over. On a small filesystem the reserve is an eighth of it (the configured
 * size would never fit), so that every disk has one.
 */
export class SpaceReserve {
  /** The size in use: the configured one, or less on a small filesystem. */
  readonly bytes: number;

  constructor(
    readonly path: string,
    readonly configured: number,
    private readonly log: Logger,
  ) {
    this.bytes = configured;
    if (configured > 0) {
      const fs = statfsSync(dirname(path));
      const share = Math.floor((fs.blocks * fs.bsize) / FILESYSTEM_SHARE / 4096) * 4096;
      if (share < configured) {
        this.bytes = share;
        log.info("the disk space reserve is an eighth of this small filesystem", { bytes: share, configured, filesystemBytes: fs.blocks * fs.bsize });
      }
    }
  }

  /** False when the reserve is turned off (--disk-reserve 0). */
  get enabled(): boolean {
    return this.bytes > 0;
  }

  get held(): boolean {
    return this.enabled && existsSync(this.path);
  }

  /**
   * Makes sure the reserve is in place: writes it when it is missing and the disk has room for
   * twice its size. True when the reserve is in place (or none is configured).
   */
  restore(): boolean {
    if (!this.enabled || this.held) return true;
    const fs = statfsSync(dirname(this.path));
    if (fs.bavail * fs.bsize < 2 * this.bytes) return false;
    const zeros = new Uint8Array(Math.min(BLOCK, this.bytes));
    let fd: number | undefined;
    try {
      fd = openSync(this.path, "w", 0o600);
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
