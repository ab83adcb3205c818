import type { Database } from "bun:sqlite";
import { statfsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../src/log/logger.ts";
import { StorageHealth } from "../src/sqlite/storage-health.ts";
import type { Telemetry } from "../src/telemetry/registry.ts";
import { DatabaseRoom } from "./buffer/database-room.ts";
import type { BufferSpace } from "./buffer/point-buffer.ts";
import { SpaceReserve } from "./buffer/space-reserve.ts";

/** With the reserve turned off, free space that ends a full-disk condition. */
const NO_RESERVE_ROOM = 1024 * 1024;

/**
 * The agent's view of its disk (docs/storage.md, "The agent on a full disk"): one storage
 * health for its databases (a full disk is logged once, exposed as a self-metric, and probed
 * every second until writes work again), the space reserve, and the rule that keeps deletes of
 * acknowledged points possible on any disk: **writes never take the room a delete needs.**
 *
 * - While the reserve is held, the databases grow freely; growth committed to the write-ahead
 *   log but not yet in the files is kept under a quarter of the reserve (one transaction adds
 *   at most that much, and a checkpoint follows once it is reached), so that the reserve can
 *   always pay for it.
 * - When the disk fills, the reserve is released, that pending growth goes into the files, and
 *   the files are capped at their size: writes then reuse the pages deletes free, plus at most
 *   half of the free space beyond the reserve's size (none, just after a release), each
 *   transaction copied into the file at once so that the log starts over for the next delete.
 * - The cap is lifted once the reserve could be written again (the disk has room for it twice).
 * - With the reserve turned off (--disk-reserve 0) the files are always capped that way, with
 *   no space held back: the one risk left is another program filling the disk between a commit
 *   and its copy into the file (then deletes wait until it frees space).
 */
export class AgentStorage {
  readonly reserve: SpaceReserve;
  readonly health: StorageHealth;
  private readonly rooms = new Map<string, DatabaseRoom>();
  private held: boolean;

  constructor(
    private readonly dataDir: string,
    reserveBytes: number,
    private readonly log: Logger,
  ) {
    this.reserve = new SpaceReserve(join(dataDir, "space-reserve"), reserveBytes, log);
    this.held = this.reserve.enabled && this.reserve.restore();
    if (this.reserve.enabled && !this.held) log.warn("the disk has no room for the space reserve yet: the buffer keeps to the space it has until there is", { bytes: this.reserve.bytes });
    this.health = new StorageHealth({ log, beforeProbe: () => this.regain() });
  }

  register(name: string, db: Database): void {
    this.health.register(name, db);
    const room = new DatabaseRoom(db);
    this.rooms.set(name, room);
    // Capped from the start when there is no reserve, with room to create the tables.
    this.beforeWrite(name);
  }

  /** What a buffer on the database `name` does to keep to the rule above (see BufferSpace). */
  space(name: string): BufferSpace {
    return {
      stepBytes: () => (this.held ? this.reserve.bytes / 4 : Number.POSITIVE_INFINITY),
      beforeWrite: () => this.beforeWrite(name),
      committed: () => this.committed(name),
    };
  }

  /** True while the reserve is held: the databases may grow freely. */
  get mayGrow(): boolean {
    return this.held;
  }

  private beforeWrite(name: string): void {
    const room = this.rooms.get(name);
    if (!room || this.held) return;
    try {
      room.limitGrowth((this.freeBytes() - this.reserve.bytes) / 2);
    } catch {}
  }

  private freeBytes(): number {
    try {
      const fs = statfsSync(this.dataDir);
      return fs.bavail * fs.bsize;
    } catch {
      return 0;
    }
  }

  private committed(name: string): void {
    const room = this.rooms.get(name);
    if (!room) return;
    try {
      if (!this.held) {
        room.checkpoint();
        room.freeze();
      } else if (room.pendingGrowth() > this.reserve.bytes / 4) {
        room.checkpoint();
      }
    } catch (e) {
      if (this.health.report(e, name) !== undefined) this.stopGrowing();
    }
  }

  /** The `writeFailed` event of a buffer: reports the failure; true when room was just made (the reserve released). */
  failed(store: string): (e: unknown) => boolean {
    return (e) => this.health.report(e, store) !== undefined && this.stopGrowing();
  }

  /** The disk is full: release the reserve, let the growth pending in the logs into the files, cap them. */
  private stopGrowing(): boolean {
    const released = this.reserve.release();
    this.held = false;
    for (const [name, room] of this.rooms) {
      try {
        room.checkpoint();
      } catch {
        // Not enough room even now: the cap still keeps writes from taking more.
      }
      this.cap(room, name);
    }
    return released;
  }

  private cap(room: DatabaseRoom, name: string): void {
    try {
      room.freeze();
    } catch (e) {
      this.log.warn("could not cap the database at its size", { db: name, err: (e as Error).message });
    }
  }

  /**
   * Before each probe while storage fails, and on the agent's tick: once the reserve could be
   * written again the cap is lifted. Until then, copies the logs into the files (a copy may have
   * failed before the reserve was released).
   */
  regain(): boolean {
    // Without a reserve (--disk-reserve 0) the condition ends once the disk has a little room.
    if (!this.reserve.enabled) return this.freeBytes() >= NO_RESERVE_ROOM;
    if (!this.reserve.restore()) {
      for (const room of this.rooms.values()) {
        try {
          room.checkpoint();
        } catch {}
      }
      return false;
    }
    if (!this.held) {
      for (const room of this.rooms.values()) room.thaw();
      this.held = true;
      this.log.info("the space reserve is in place: the buffer may grow again", { bytes: this.reserve.bytes });
    }
    return true;
  }

  /** On the agent's tick: lifts the cap once the disk has room again, also when no write was refused. */
  tick(): void {
    if (this.reserve.enabled && !this.held && this.health.failing === undefined) this.regain();
  }

  instrument(t: Telemetry): void {
    this.health.instrument(t, "outpost_agent");
    t.gauge("outpost_agent_disk_reserve_held", "1 while the disk space reserve is in place; 0 after it was released on a full disk", () => (this.reserve.held ? 1 : 0));
    t.gauge("outpost_agent_disk_reserve_bytes", "size of the disk space reserve (--disk-reserve, or an eighth of a smaller filesystem)", () => this.reserve.bytes);
    t.gauge("outpost_agent_buffer_capped", "1 while the buffer keeps to the disk room it has (the disk filled and the reserve is not back)", () => (this.held ? 0 : 1));
  }

  close(): void {
    this.health.close();
  }
}
