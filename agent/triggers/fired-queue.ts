import type { Alert, Event } from "../../src/alerts/model.ts";
import type { Logger } from "../../src/log/logger.ts";
import { storageFailure } from "../../src/sqlite/storage-failure.ts";

/** Groups kept in memory while the disk refuses them, at most; past it the oldest are given up. */
const MAX_WAITING = 10_000;

/**
 * Takes what local triggers fired into the events buffer, in order. While the buffer cannot
 * take it (a full disk) it waits here and is tried again every `retryMs`: an alert is not
 * dropped for want of space (only, beyond `MAX_WAITING` groups, the oldest, logged).
 */
export class FiredQueue {
  private readonly waiting: (Alert | Event)[][] = [];
  private busy = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly append: (chunks: { items: (Alert | Event)[] }[]) => Promise<void>,
    private readonly log: Logger,
    private readonly retryMs = 1000,
  ) {}

  push(items: (Alert | Event)[]): void {
    this.waiting.push(items);
    void this.drain();
  }

  /** Groups waiting for the buffer. */
  get held(): number {
    return this.waiting.length;
  }

  private async drain(): Promise<void> {
    if (this.busy || this.closed) return;
    this.busy = true;
    try {
      while (this.waiting.length > 0) {
        const groups = this.waiting.splice(0);
        try {
          await this.append(groups.map((items) => ({ items })));
        } catch (e) {
          if (storageFailure(e) === undefined) {
            this.log.error("buffering fired alerts failed", { err: (e as Error).message, groups: groups.length });
            continue;
          }
          this.hold(groups);
          return;
        }
      }
    } finally {
      this.busy = false;
    }
  }

  private hold(groups: (Alert | Event)[][]): void {
    this.waiting.unshift(...groups);
    if (this.waiting.length > MAX_WAITING) {
      const lost = this.waiting.splice(0, this.waiting.length - MAX_WAITING);
      this.log.error("the disk stayed full too long: the oldest fired alerts and events are given up", { groups: lost.length });
    }
    this.retry ??= setTimeout(() => {
      this.retry = undefined;
      void this.drain();
    }, this.retryMs);
  }

  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.waiting.length > 0) this.log.error("stopping with fired alerts and events the disk refused", { groups: this.waiting.length });
  }
}
