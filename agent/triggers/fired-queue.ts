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
interface Group {
  items: (Alert | Event)[];
  /** Called once the group is in the buffer, or held here for want of room. */
  settled?: () => void;
}

export class FiredQueue {
  private readonly waiting: Group[] = [];
  /** Groups taken out of `waiting` for the write under way. */
  private writing = 0;
  private busy = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly append: (chunks: { items: (Alert | Event)[] }[]) => Promise<void>,
    private readonly log: Logger,
    private readonly retryMs = 1000,
  ) {}

  /**
   * Queues a group; `settled` is called once it is committed to the buffer (or held here while
   * the disk is full), so that what acts on an alert acts only after a kill -9 could not lose it.
   */
  push(items: (Alert | Event)[], settled?: () => void): void {
    this.waiting.push({ items, settled });
    void this.drain();
  }

  /** Groups not in the buffer yet: waiting, or in the write under way (which may fail again). */
  get held(): number {
    return this.waiting.length + this.writing;
  }

  private async drain(): Promise<void> {
    if (this.busy || this.closed) return;
    this.busy = true;
    try {
      while (this.waiting.length > 0) {
        const groups = this.waiting.splice(0);
        this.writing = groups.length;
        try {
          await this.append(groups.map(({ items }) => ({ items })));
          this.writing = 0;
        } catch (e) {
          this.writing = 0;
          if (storageFailure(e) === undefined) {
            this.log.error("buffering fired alerts failed", { err: (e as Error).message, groups: groups.length });
            settle(groups);
            continue;
          }
          this.hold(groups);
          settle(groups);
          return;
        }
        settle(groups);
      }
    } finally {
      this.busy = false;
    }
  }

  private hold(groups: Group[]): void {
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

/** Tells each group's waiter once (a held group is not told again when it is retried). */
function settle(groups: Group[]): void {
  for (const g of groups) {
    const f = g.settled;
    g.settled = undefined;
    f?.();
  }
}
