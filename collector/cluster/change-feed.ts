import type { SQL } from "bun";
import type { Logger } from "../../src/log/logger.ts";
import { migratePostgres, type PgSchema, pgBaseline } from "../../src/postgres/migrations.ts";

/** The schema of one change feed: its own table of (origin, tenant, payload) rows. */
export function changeFeedSchema(name: string, table: string): PgSchema {
  return {
    name,
    migrations: [
      pgBaseline(`${name} changes`, [
        `CREATE TABLE IF NOT EXISTS ${table} (id BIGSERIAL PRIMARY KEY, origin TEXT NOT NULL, tenant TEXT NOT NULL, payload TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())`,
        `CREATE INDEX IF NOT EXISTS ${table}_at ON ${table} (at)`,
      ]),
    ],
  };
}

export interface ChangeFeedOptions {
  sql: SQL;
  schema: PgSchema;
  table: string;
  /** This collector: its own rows are not applied. */
  owner: string;
  log: Logger;
  /** What the rows are, for log lines ("trigger changes"). */
  what: string;
  /** Applies a change noted by another collector. */
  apply(tenant: string, payload: string): Promise<void>;
  pollMs?: number;
}

interface ChangeRow {
  id: string | number | bigint;
  origin: string;
  tenant: string;
  payload: string;
}

/**
 * Changes one collector notes for the others sharing the database: rows in a table of their
 * own, which every collector reads every `pollMs` and applies. Rows are read again for 30 s
 * after they appear, since ids of transactions committing out of order may show up late; what
 * is applied must therefore be harmless to apply twice. Rows older than an hour are deleted.
 */
export class ChangeFeed {
  private timer: ReturnType<typeof setInterval> | undefined;
  private round: Promise<void> | undefined;
  private readonly sending = new Set<Promise<void>>();
  /** Ids seen in the window read again: applied (or our own), not to apply twice in a row. */
  private seen = new Set<string>();
  private lastError = "";

  constructor(private readonly o: ChangeFeedOptions) {}

  async start(): Promise<void> {
    await migratePostgres(this.o.sql, this.o.schema);
    // What was noted before this start is in the store already, and was loaded with it.
    for (const r of (await this.o.sql.unsafe(`SELECT id FROM ${this.o.table} WHERE at > clock_timestamp() - interval '30 seconds'`)) as ChangeRow[]) {
      this.seen.add(String(r.id));
    }
    this.timer = setInterval(() => void this.poll(), this.o.pollMs ?? 500);
    this.timer.unref?.();
  }

  note(tenant: string, payload: string): void {
    this.noteAll([{ tenant, payload }]);
  }

  /** Notes several changes in one statement per 500 (a big inventory sync makes thousands). */
  noteAll(rows: readonly { tenant: string; payload: string }[]): void {
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const values = chunk.map((_, k) => `($1, $${2 * k + 2}, $${2 * k + 3})`).join(", ");
      const sent = this.o.sql
        .unsafe(`INSERT INTO ${this.o.table} (origin, tenant, payload) VALUES ${values}`, [this.o.owner, ...chunk.flatMap((r) => [r.tenant, r.payload])])
        .then(
          () => undefined,
          (e) => this.o.log.error(`telling the other collectors of ${this.o.what} failed`, { tenant: chunk[0]!.tenant, rows: chunk.length, err: String(e) }),
        )
        .finally(() => this.sending.delete(sent));
      this.sending.add(sent);
    }
  }

  poll(): Promise<void> {
    this.round ??= this.applyChanges()
      .then(
        () => {
          this.lastError = "";
        },
        (e) => {
          const msg = String(e);
          if (msg !== this.lastError) this.o.log.warn(`reading other collectors' ${this.o.what} failed; retrying`, { err: msg });
          this.lastError = msg;
        },
      )
      .finally(() => {
        this.round = undefined;
      });
    return this.round;
  }

  private async applyChanges(): Promise<void> {
    // The ids of the window first: payloads are read once, for the rows not seen yet.
    const ids = (await this.o.sql.unsafe(
      `SELECT id, origin FROM ${this.o.table} WHERE at > clock_timestamp() - interval '30 seconds' ORDER BY id`,
    )) as Pick<ChangeRow, "id" | "origin">[];
    const window = new Set<string>();
    const fresh: string[] = [];
    for (const r of ids) {
      const id = String(r.id);
      window.add(id);
      if (this.seen.has(id)) continue;
      if (r.origin === this.o.owner) this.seen.add(id);
      else fresh.push(id);
    }
    for (let i = 0; i < fresh.length; i += 500) {
      const chunk = fresh.slice(i, i + 500);
      const rows = (await this.o.sql.unsafe(
        `SELECT id, tenant, payload FROM ${this.o.table} WHERE id IN (${chunk.map((_, k) => `$${k + 1}`).join(", ")}) ORDER BY id`,
        chunk,
      )) as ChangeRow[];
      for (const r of rows) {
        await this.o.apply(r.tenant, r.payload);
        this.seen.add(String(r.id));
      }
    }
    for (const id of this.seen) if (!window.has(id)) this.seen.delete(id);
    if (Math.random() < 0.01) await this.o.sql.unsafe(`DELETE FROM ${this.o.table} WHERE at < clock_timestamp() - interval '1 hour'`);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.round;
    await Promise.all([...this.sending]);
  }
}
