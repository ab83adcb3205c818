import { randomUUID } from "node:crypto";
import { CanonicalPath } from "../../src/inventory/canonical-path.ts";
import type { InventoryEvents } from "../events/inventory-events.ts";
import type { InventoryReader, InventoryStore, InventoryTx } from "../store/inventory/types.ts";
import { Changes } from "./changes.ts";
import { refreshHashes } from "./hash-refresh.ts";

/** What the inventory domain functions work with. */
export interface Inventory {
  store: InventoryStore;
  events: InventoryEvents;
  /** Ids of new relationships; random UUIDs unless a test wants them predictable. */
  newId?: () => string;
}

/**
 * Runs `fn` in one store transaction for `tenant` (creating the tenant on first write),
 * refreshes the hashes it made stale, runs `finish` if given, then publishes the events once committed.
 */
export async function mutate<T, R = T>(
  inv: Inventory,
  tenant: string,
  fn: (tx: InventoryTx, changes: Changes) => Promise<T>,
  finish?: (tx: InventoryTx, result: T) => Promise<R>,
): Promise<R> {
  const changes = new Changes(tenant, inv.newId ?? randomUUID);
  const { result, events } = await inv.store.transaction(async (tx) => {
    await ensureTenant(tx, tenant);
    const done = await fn(tx, changes);
    await refreshHashes(tx, changes);
    // `finish` sees the refreshed hashes, e.g. to render what was just created.
    const result = finish ? await finish(tx, done) : (done as unknown as R);
    const events = [];
    // Payloads cost reads; render them only when someone listens.
    if (inv.events.hasListeners(tenant)) {
      for (const p of changes.pending) {
        // Only what a listener follows: a sync makes thousands of changes of every kind.
        if (inv.events.hasListeners(tenant, p.type, p.action)) events.push({ tenant, action: p.action, type: p.type, payload: await p.payload() });
      }
    }
    return { result, events };
  });
  for (const e of events) inv.events.publish(e);
  return result;
}

export function readOnly<T>(inv: Inventory, fn: (r: InventoryReader) => Promise<T>): Promise<T> {
  return inv.store.read(fn);
}

async function ensureTenant(tx: InventoryTx, tenant: string): Promise<void> {
  const path = CanonicalPath.tenant(tenant);
  if (!(await tx.getEntity(tenant, path))) await tx.insertEntity(tenant, { path, type: "t", id: tenant });
}
