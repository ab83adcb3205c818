import type { SegmentCode } from "../../src/inventory/segment-types.ts";

export const INVENTORY_ACTIONS = ["created", "updated", "deleted", "identity_hash_changed"] as const;
export type InventoryAction = (typeof INVENTORY_ACTIONS)[number];

/** One committed change of the inventory. */
export interface InventoryEvent {
  tenant: string;
  action: InventoryAction;
  /** Type of the changed element (an entity type code or `rl`). */
  type: SegmentCode;
  /**
   * The JSON sent to listeners: the element itself, or for `updated`
   * `{"originalEntity": ..., "update": ...}` (research §3.9).
   */
  payload: unknown;
}

export type InventoryListener = (e: InventoryEvent) => void;

/**
 * In-process fan-out of committed inventory changes (to websocket clients). Listeners run
 * synchronously after commit; a throwing listener is isolated from the others.
 */
export class InventoryEvents {
  private readonly listeners = new Set<InventoryListener>();
  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  subscribe(fn: InventoryListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** False when nobody listens, so producers can skip rendering payloads. */
  hasListeners(): boolean {
    return this.listeners.size > 0;
  }

  publish(e: InventoryEvent): void {
    for (const fn of this.listeners) {
      try {
        fn(e);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
