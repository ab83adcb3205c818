import type { Alert, Event } from "../../src/alerts/model.ts";

/** Something a watch stream may want to send: an alert whose lifecycle changed, or a new event. */
export type WatchChange = { kind: "alert"; alert: Alert } | { kind: "event"; event: Event };

export type WatchListener = (change: WatchChange) => void;

/** Fan-out of alert and event changes to the open watch streams of this collector. */
export class WatchHub {
  private readonly listeners = new Set<WatchListener>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  subscribe(fn: WatchListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  publish(change: WatchChange): void {
    for (const fn of this.listeners) {
      try {
        fn(change);
      } catch (e) {
        this.onListenerError(e);
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
