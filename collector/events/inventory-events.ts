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
 * synchronously after commit; a throwing listener is isolated from the others. Listeners say
 * which tenant they follow, so that producers render payloads only for tenants someone
 * follows, here or (`remoteInterest`, docs/scale-out.md) on another collector.
 */
export class InventoryEvents {
  private readonly listeners = new Map<InventoryListener, string | undefined>();
  /** Listeners per tenant (undefined: every tenant). */
  private readonly followed = new Map<string | undefined, number>();
  private readonly taps = new Set<InventoryListener>();
  /** Tenants followed on other collectors sharing the database. */
  remoteInterest: (tenant: string) => boolean = () => false;
  /** Called when a tenant becomes followed here (the other collectors are told at once). */
  onNewlyFollowed: () => void = () => {};

  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  /** `tenant`: the one tenant the listener wants (undefined: all). */
  subscribe(fn: InventoryListener, tenant?: string): () => void {
    if (this.listeners.has(fn)) return () => this.unsubscribe(fn);
    this.listeners.set(fn, tenant);
    const before = this.followed.get(tenant) ?? 0;
    this.followed.set(tenant, before + 1);
    if (before === 0) this.onNewlyFollowed();
    return () => this.unsubscribe(fn);
  }

  private unsubscribe(fn: InventoryListener): void {
    if (!this.listeners.has(fn)) return;
    const tenant = this.listeners.get(fn);
    this.listeners.delete(fn);
    const n = (this.followed.get(tenant) ?? 1) - 1;
    if (n > 0) this.followed.set(tenant, n);
    else this.followed.delete(tenant);
  }

  /** Sees every event without being a listener (it does not make payloads rendered). */
  tap(fn: InventoryListener): () => void {
    this.taps.add(fn);
    return () => this.taps.delete(fn);
  }

  /** The tenants local listeners follow (undefined: one follows all). */
  followedTenants(): (string | undefined)[] {
    return [...this.followed.keys()];
  }

  /** False when nobody listens (to `tenant`, when given), so producers can skip rendering payloads. */
  hasListeners(tenant?: string): boolean {
    if (tenant === undefined) return this.listeners.size > 0;
    return this.followed.has(undefined) || this.followed.has(tenant) || this.remoteInterest(tenant);
  }

  publish(e: InventoryEvent): void {
    for (const fn of [...this.taps, ...this.listeners.keys()]) {
      try {
        fn(e);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }
}
