import type { Alert, Event } from "../../src/alerts/model.ts";
import type { AlertRecords } from "./alerts.ts";
import type { AlertingContext } from "./context.ts";
import { type AlertCriteria, alertMatches, type EventCriteria, eventMatches, statusTime, withoutTimes } from "./criteria.ts";
import type { EventRecords } from "./events.ts";

/**
 * A watch: the items the first query found, then what changes afterwards. Changes are
 * collected from the moment the watch opens (before the first query, so none is missed) and
 * the latest state of each item is handed out by `take`.
 */
export class WatchFeed<T extends { id: string }> {
  private buffer = new Map<string, T>();
  private wake: (() => void) | undefined;
  private unsubscribe: () => void = () => {};
  private onClose: (() => void)[] = [];
  initial: T[] = [];
  closed = false;

  constructor(private readonly order: (a: T, b: T) => number) {}

  /** Called by the hub subscription for every item that passes the watch's criteria. */
  offer(item: T): void {
    this.buffer.set(item.id, item);
    this.wake?.();
  }

  start(initial: T[], unsubscribe: () => void, same: (a: T, b: T) => boolean): void {
    this.unsubscribe = unsubscribe;
    this.initial = [...initial].sort(this.order);
    for (const i of initial) {
      const b = this.buffer.get(i.id);
      if (b && same(b, i)) this.buffer.delete(i.id);
    }
  }

  /** What changed since the last call, in order; waits up to `waitMs` for something. */
  async take(waitMs: number): Promise<T[]> {
    if (this.buffer.size === 0 && !this.closed) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        timer = setTimeout(resolve, waitMs);
      });
      clearTimeout(timer);
      this.wake = undefined;
    }
    const out = [...this.buffer.values()].sort(this.order);
    this.buffer = new Map();
    return out;
  }

  /** Ends the watch: `take` answers at once from now on. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    this.wake?.();
    for (const fn of this.onClose) fn();
  }

  whenClosed(fn: () => void): void {
    this.onClose.push(fn);
  }
}

const byStatusTime = (a: Alert, b: Alert) => statusTime(a) - statusTime(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const byCtime = (a: Event, b: Event) => a.ctime - b.ctime || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Alerts ordered by their current lifecycle time; time criteria apply to the first query only. */
export async function watchAlerts(
  ctx: AlertingContext,
  alerts: AlertRecords,
  tenants: readonly string[],
  criteria: AlertCriteria,
): Promise<WatchFeed<Alert>> {
  const feed = new WatchFeed<Alert>(byStatusTime);
  const later = withoutTimes(criteria);
  const unsubscribe = ctx.hub.subscribe((c) => {
    if (c.kind === "alert" && tenants.includes(c.alert.tenantId) && alertMatches(c.alert, later)) feed.offer(c.alert);
  });
  try {
    feed.start(await alerts.matching(tenants, criteria), unsubscribe, (a, b) => statusTime(a) === statusTime(b) && a.status === b.status);
  } catch (e) {
    unsubscribe();
    throw e;
  }
  return feed;
}

/**
 * Events ordered by ctime, alerts among them (as they are created: later lifecycle moves of an
 * alert are no new event); time criteria apply to the first query only.
 */
export async function watchEvents(
  ctx: AlertingContext,
  events: EventRecords,
  tenants: readonly string[],
  criteria: EventCriteria,
): Promise<WatchFeed<Event>> {
  const feed = new WatchFeed<Event>(byCtime);
  const later = withoutTimes(criteria);
  const unsubscribe = ctx.hub.subscribe((c) => {
    const e = c.kind === "event" ? c.event : c.alert.lifecycle.length <= 1 ? c.alert : undefined;
    if (e && tenants.includes(e.tenantId) && eventMatches(e, later)) feed.offer(e);
  });
  try {
    feed.start(await events.matching(tenants, criteria), unsubscribe, () => true);
  } catch (e) {
    unsubscribe();
    throw e;
  }
  return feed;
}
