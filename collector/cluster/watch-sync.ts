import type { SQL } from "bun";
import type { Logger } from "../../src/log/logger.ts";
import type { WatchChange, WatchListener } from "../alerts/watch-hub.ts";
import { ChangeFeed, changeFeedSchema } from "./change-feed.ts";

/**
 * Watch streams on every collector sharing the database: each alert or event a collector
 * announces to its own watchers is noted in `outpost_watch_changes` (kind and id), and the
 * others announce it, as stored now, to theirs. A watch stream thus follows the alerts fired
 * by whichever collector holds the tenant's lease, about half a second later.
 */
export const WATCH_SYNC_SCHEMA = changeFeedSchema("watch-sync", "outpost_watch_changes");

/** What the sync needs of the alerting service (collector/alerts/service.ts). */
export interface SyncedWatches {
  onWatchChange(fn: WatchListener): () => void;
  /** The alert or event as stored now; undefined when it is gone. */
  watchedItem(tenantId: string, kind: WatchChange["kind"], id: string): Promise<WatchChange | undefined>;
  /** Announces a change to this collector's watch streams. */
  publishWatch(change: WatchChange): void;
}

export class WatchSync {
  private readonly feed: ChangeFeed;
  private unsubscribe: (() => void) | undefined;
  /** Set while announcing another collector's change, so that it is not noted back. */
  private relaying = false;

  constructor(private readonly o: { sql: SQL; owner: string; watches: SyncedWatches; log: Logger; pollMs?: number }) {
    this.feed = new ChangeFeed({
      ...o,
      schema: WATCH_SYNC_SCHEMA,
      table: "outpost_watch_changes",
      what: "alerts and events for watch streams",
      apply: async (tenant, payload) => {
        const { kind, id } = JSON.parse(payload) as { kind: WatchChange["kind"]; id: string };
        const change = await o.watches.watchedItem(tenant, kind, id);
        if (!change) return;
        // Listeners run synchronously: the flag covers exactly this announcement.
        this.relaying = true;
        try {
          o.watches.publishWatch(change);
        } finally {
          this.relaying = false;
        }
      },
    });
  }

  async start(): Promise<void> {
    await this.feed.start();
    this.unsubscribe = this.o.watches.onWatchChange((c) => {
      if (this.relaying) return;
      const item = c.kind === "alert" ? c.alert : c.event;
      this.feed.note(item.tenantId, JSON.stringify({ kind: c.kind, id: item.id }));
    });
  }

  poll(): Promise<void> {
    return this.feed.poll();
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    await this.feed.close();
  }
}
