import type { Logger } from "../../src/log/logger.ts";
import type { InventoryAck } from "../../src/protocol/inventory-messages.ts";
import type { DigestedStructure } from "./structure-digest.ts";

export interface InventorySyncOptions {
  /** Publishes the structure (QoS 1); rejects when the link is down. */
  send(s: DigestedStructure): Promise<void>;
  /** A structure sent and not acknowledged within this time is sent again. */
  retryMs: number;
  log: Logger;
  now?: () => number;
}

/**
 * Keeps the collector's copy of the feed's inventory equal to the agent's: a structure is sent
 * when its digest differs from the last one the collector acknowledged, again after a reconnect
 * or `retryMs` without an ack, and never when unchanged. A structure the collector refused is
 * not sent again until it changes.
 */
export class InventorySync {
  private current: DigestedStructure | undefined;
  private applied: string | undefined;
  private refused: string | undefined;
  private sentAt: number | undefined;
  private linkUp = false;
  private readonly now: () => number;

  constructor(private readonly o: InventorySyncOptions) {
    this.now = o.now ?? Date.now;
  }

  /** The structure as discovered now; sent only if it differs from what the collector has. */
  offer(s: DigestedStructure): void {
    if (this.current?.digest !== s.digest) {
      this.current = s;
      this.sentAt = undefined;
      if (s.digest !== this.applied) this.o.log.info("inventory changed", { digest: s.digest });
    }
    this.maybeSend();
  }

  linkReady(): void {
    this.linkUp = true;
    // Whatever was in flight may have been lost with the connection.
    this.sentAt = undefined;
    this.maybeSend();
  }

  linkDown(): void {
    this.linkUp = false;
  }

  /** Called every tick: resends an unacknowledged structure after `retryMs`. */
  tick(): void {
    this.maybeSend();
  }

  onAck(ack: InventoryAck): void {
    if (ack.error !== undefined) {
      this.refused = ack.digest;
      this.o.log.error("the collector refused the inventory; it is sent again when it changes", { digest: ack.digest, reason: ack.error });
      return;
    }
    if (ack.digest === this.applied) return;
    this.applied = ack.digest;
    this.o.log.info("inventory synced", { digest: ack.digest });
  }

  /** True while the latest structure is not yet acknowledged. */
  get pending(): boolean {
    return this.current !== undefined && this.current.digest !== this.applied && this.current.digest !== this.refused;
  }

  private maybeSend(): void {
    const s = this.current;
    if (!s || !this.linkUp || !this.pending) return;
    const now = this.now();
    if (this.sentAt !== undefined && now - this.sentAt < this.o.retryMs) return;
    this.sentAt = now;
    this.o.send(s).then(
      () => this.o.log.debug("inventory sent", { digest: s.digest }),
      (e) => {
        // Try again at the next tick or reconnect.
        this.sentAt = undefined;
        this.o.log.debug("sending the inventory failed", { err: (e as Error).message });
      },
    );
  }
}
