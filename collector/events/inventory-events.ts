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

/** What a listener follows: a tenant's changes of one element type and action. */
export interface InventoryInterest {
  tenant: string;
  type: SegmentCode;
  /** An InventoryAction, or upstream's `copied`, which never happens here. */
  action: string;
}

/** The key of an interest, as noted for the other collectors too. */
export const interestKey = (tenant: string, type: string, action: string): string => `${tenant}\u0000${type}\u0000${action}`;

/**
 * In-process fan-out of committed inventory changes (to websocket clients). Listeners run
 * synchronously after commit; a throwing listener is isolated from the others. Listeners say
 * what they follow, so that producers render payloads only for changes someone follows, here
 * or (`remoteInterest`, docs/scale-out.md) on another collector.
 */
export class InventoryEvents {
  private readonly listeners = new Map<InventoryListener, string | undefined>();
  /** Listeners per interest key (undefined: they follow everything). */
  private readonly followed = new Map<string | undefined, number>();
  private readonly followedTenants = new Map<string, number>();
  private readonly taps = new Set<InventoryListener>();
  /** Followed on other collectors sharing the database: by tenant, and by interest key. */
  remoteInterest: { tenant(tenant: string): boolean; change(key: string): boolean } = { tenant: () => false, change: () => false };
  /** Called when something becomes followed here (the other collectors are told at once). */
  onNewlyFollowed: () => void = () => {};

  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  /** `interest`: what the listener wants (undefined: everything). */
  subscribe(fn: InventoryListener, interest?: InventoryInterest): () => void {
    if (this.listeners.has(fn)) return () => this.unsubscribe(fn);
    const key = interest && interestKey(interest.tenant, interest.type, interest.action);
    this.listeners.set(fn, key);
    const before = this.followed.get(key) ?? 0;
    this.followed.set(key, before + 1);
    if (interest) this.followedTenants.set(interest.tenant, (this.followedTenants.get(interest.tenant) ?? 0) + 1);
    if (before === 0) this.onNewlyFollowed();
    return () => this.unsubscribe(fn);
  }

  private unsubscribe(fn: InventoryListener): void {
    if (!this.listeners.has(fn)) return;
    const key = this.listeners.get(fn);
    this.listeners.delete(fn);
    decrement(this.followed, key);
    if (key !== undefined) decrement(this.followedTenants, key.split("\u0000")[0]!);
  }

  /** Sees every event published without being a listener (it does not make payloads rendered). */
  tap(fn: InventoryListener): () => void {
    this.taps.add(fn);
    return () => this.taps.delete(fn);
  }

  /** The interest keys local listeners follow (undefined: one follows everything). */
  followedKeys(): (string | undefined)[] {
    return [...this.followed.keys()];
  }

  /**
   * False when nobody listens to the tenant (or, given them, to its changes of `type` and
   * `action`), so producers can skip rendering payloads.
   */
  hasListeners(tenant?: string, type?: string, action?: string): boolean {
    if (tenant === undefined || this.followed.has(undefined)) return this.listeners.size > 0;
    if (type === undefined || action === undefined) return this.followedTenants.has(tenant) || this.remoteInterest.tenant(tenant);
    const key = interestKey(tenant, type, action);
    return this.followed.has(key) || this.remoteInterest.change(key);
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

function decrement<K>(m: Map<K, number>, k: K): void {
  const n = (m.get(k) ?? 1) - 1;
  if (n > 0) m.set(k, n);
  else m.delete(k);
}
