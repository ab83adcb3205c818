import type { SQL } from "bun";
import type { Logger } from "../../src/log/logger.ts";
import { ChangeFeed, changeFeedSchema } from "./change-feed.ts";

/**
 * Trigger definitions changed through one collector reach the engines of the others sharing
 * the database: each change (created, changed, removed, auto-disabled) is noted in
 * `outpost_definition_changes`, and the others apply the triggers as stored now.
 */
export const DEFINITION_SYNC_SCHEMA = changeFeedSchema("definition-sync", "outpost_definition_changes");

/** What the sync needs of the alerting service (collector/alerts/service.ts). */
export interface SyncedDefinitions {
  onDefinitionsChanged(fn: (tenantId: string, triggerIds: readonly string[], remote?: boolean) => void): () => void;
  applyRemoteDefinitions(tenantId: string, triggerIds: readonly string[]): Promise<void>;
}

export class DefinitionSync {
  private readonly feed: ChangeFeed;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly o: { sql: SQL; owner: string; definitions: SyncedDefinitions; log: Logger; pollMs?: number }) {
    this.feed = new ChangeFeed({
      ...o,
      schema: DEFINITION_SYNC_SCHEMA,
      table: "outpost_definition_changes",
      what: "trigger changes",
      apply: (tenant, payload) => o.definitions.applyRemoteDefinitions(tenant, JSON.parse(payload) as string[]),
    });
  }

  async start(): Promise<void> {
    await this.feed.start();
    this.unsubscribe = this.o.definitions.onDefinitionsChanged((tenant, ids, remote) => {
      if (!remote) this.feed.note(tenant, JSON.stringify(ids));
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
