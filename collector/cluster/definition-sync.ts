import type { SQL } from "bun";
import type { Logger } from "../../src/log/logger.ts";
import { migratePostgres, type PgSchema, pgBaseline } from "../../src/postgres/migrations.ts";

/**
 * Trigger definitions changed through one collector reach the engines of the others sharing
 * the database: each change (created, changed, removed, auto-disabled) is noted in
 * `outpost_definition_changes`, which every collector reads every `pollMs` and applies (the
 * triggers as stored now). Rows are read again for a while after they appear, since ids of
 * transactions committing out of order may show up late; applying one twice is harmless.
 */
export const DEFINITION_SYNC_SCHEMA: PgSchema = {
  name: "definition-sync",
  migrations: [
    pgBaseline("definition changes", [
      "CREATE TABLE IF NOT EXISTS outpost_definition_changes (id BIGSERIAL PRIMARY KEY, origin TEXT NOT NULL, tenant TEXT NOT NULL, trigger_ids TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())",
      "CREATE INDEX IF NOT EXISTS outpost_definition_changes_at ON outpost_definition_changes (at)",
    ]),
  ],
};

/** What the sync needs of the alerting service (collector/alerts/service.ts). */
export interface SyncedDefinitions {
  onDefinitionsChanged(fn: (tenantId: string, triggerIds: readonly string[], remote?: boolean) => void): () => void;
  applyRemoteDefinitions(tenantId: string, triggerIds: readonly string[]): Promise<void>;
}

interface ChangeRow {
  id: string | number | bigint;
  tenant: string;
  trigger_ids: string;
}

export class DefinitionSync {
  private timer: ReturnType<typeof setInterval> | undefined;
  private round: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private readonly sending = new Set<Promise<void>>();
  /** Ids seen in the window read again: applied (or our own), not to apply twice in a row. */
  private seen = new Set<string>();
  private lastError = "";

  constructor(
    private readonly o: { sql: SQL; owner: string; definitions: SyncedDefinitions; log: Logger; pollMs?: number },
  ) {}

  async start(): Promise<void> {
    await migratePostgres(this.o.sql, DEFINITION_SYNC_SCHEMA);
    // What was noted before this start is in the store already, and was loaded with it.
    for (const r of (await this.o.sql.unsafe("SELECT id FROM outpost_definition_changes WHERE at > clock_timestamp() - interval '30 seconds'")) as ChangeRow[]) {
      this.seen.add(String(r.id));
    }
    this.unsubscribe = this.o.definitions.onDefinitionsChanged((tenant, ids, remote) => {
      if (!remote) this.note(tenant, ids);
    });
    this.timer = setInterval(() => void this.poll(), this.o.pollMs ?? 500);
    this.timer.unref?.();
  }

  private note(tenant: string, ids: readonly string[]): void {
    const sent = this.o.sql
      .unsafe("INSERT INTO outpost_definition_changes (origin, tenant, trigger_ids) VALUES ($1, $2, $3)", [this.o.owner, tenant, JSON.stringify(ids)])
      .then(
        () => undefined,
        (e) => this.o.log.error("telling the other collectors of a trigger change failed: they see it at their restart", { tenant, err: String(e) }),
      )
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  }

  poll(): Promise<void> {
    this.round ??= this.applyChanges()
      .then(
        () => {
          this.lastError = "";
        },
        (e) => {
          const msg = String(e);
          if (msg !== this.lastError) this.o.log.warn("reading other collectors' trigger changes failed; retrying", { err: msg });
          this.lastError = msg;
        },
      )
      .finally(() => {
        this.round = undefined;
      });
    return this.round;
  }

  private async applyChanges(): Promise<void> {
    const rows = (await this.o.sql.unsafe(
      "SELECT id, origin, tenant, trigger_ids FROM outpost_definition_changes WHERE at > clock_timestamp() - interval '30 seconds' ORDER BY id",
    )) as (ChangeRow & { origin: string })[];
    const window = new Set<string>();
    for (const r of rows) {
      const id = String(r.id);
      window.add(id);
      if (this.seen.has(id) || r.origin === this.o.owner) continue;
      await this.o.definitions.applyRemoteDefinitions(r.tenant, JSON.parse(r.trigger_ids) as string[]);
      this.seen.add(id);
    }
    for (const id of this.seen) if (!window.has(id)) this.seen.delete(id);
    if (Math.random() < 0.01) await this.o.sql.unsafe("DELETE FROM outpost_definition_changes WHERE at < clock_timestamp() - interval '1 hour'");
  }

  async close(): Promise<void> {
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.round;
    await Promise.all([...this.sending]);
  }
}
