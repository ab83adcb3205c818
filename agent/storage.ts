import type { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Logger } from "../src/log/logger.ts";
import { StorageHealth } from "../src/sqlite/storage-health.ts";
import type { Telemetry } from "../src/telemetry/registry.ts";
import { SpaceReserve } from "./buffer/space-reserve.ts";

/**
 * The agent's view of its disk: one storage health for its databases (a full disk is logged
 * once, exposed as a self-metric, and probed every second until writes work again) and the
 * space reserve it releases so that acknowledged points can always be deleted. Writes resume
 * by themselves once the disk has room again; the condition ends when the reserve is back.
 */
export class AgentStorage {
  readonly reserve: SpaceReserve;
  readonly health: StorageHealth;

  constructor(dataDir: string, reserveBytes: number, log: Logger) {
    this.reserve = new SpaceReserve(join(dataDir, "space-reserve"), reserveBytes, log);
    if (!this.reserve.restore()) log.warn("the disk has no room for the space reserve yet; it is written once there is", { bytes: reserveBytes });
    this.health = new StorageHealth({ log, beforeProbe: () => this.reserve.restore() });
  }

  register(name: string, db: Database): void {
    this.health.register(name, db);
  }

  /** The `writeFailed` event of a buffer: reports the failure; true when the reserve was just released. */
  failed(store: string): (e: unknown) => boolean {
    return (e) => this.health.report(e, store) !== undefined && this.reserve.release();
  }

  instrument(t: Telemetry): void {
    this.health.instrument(t, "outpost_agent");
    t.gauge("outpost_agent_disk_reserve_held", "1 while the disk space reserve is in place; 0 after it was released on a full disk", () => (this.reserve.held ? 1 : 0));
  }

  close(): void {
    this.health.close();
  }
}
