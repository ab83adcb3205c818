import type { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import type { SegmentCode } from "../../src/inventory/segment-types.ts";
import type { InventoryAction } from "../events/inventory-events.ts";
import type { InventoryTx } from "../store/inventory/types.ts";

export interface PendingEvent {
  action: InventoryAction;
  type: SegmentCode;
  /** Rendered at the end of the transaction, so created entities carry their final hashes. */
  payload: () => Promise<unknown>;
}

/** What one transaction changed: events to publish after commit, entities whose hashes are stale. */
export class Changes {
  readonly pending: PendingEvent[] = [];
  readonly touched = new Map<string, CanonicalPath>();

  constructor(
    readonly tenant: string,
    readonly newId: () => string,
  ) {}

  touch(path: CanonicalPath): void {
    this.touched.set(path.toString(), path);
  }

  emit(action: InventoryAction, type: SegmentCode, payload: () => Promise<unknown>): void {
    this.pending.push({ action, type, payload });
  }

  /** Runs `fn` in a savepoint; when it fails, its writes, events and stale marks are all undone. */
  async attempt<T>(tx: InventoryTx, fn: () => Promise<T>): Promise<T> {
    const events = this.pending.length;
    const touched = new Map(this.touched);
    try {
      return await tx.savepoint(fn);
    } catch (e) {
      this.pending.length = events;
      this.touched.clear();
      for (const [k, v] of touched) this.touched.set(k, v);
      throw e;
    }
  }
}
