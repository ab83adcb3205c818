import type { SQL } from "bun";
import type { Logger } from "../../src/log/logger.ts";
import { migratePostgres, type PgSchema, pgBaseline } from "../../src/postgres/migrations.ts";
import { type InventoryEvent, type InventoryEvents, interestKey } from "../events/inventory-events.ts";
import { ChangeFeed, changeFeedSchema } from "./change-feed.ts";

/**
 * Inventory websocket events (`/ws/events`) on every collector sharing the database. Each
 * collector notes in `outpost_inventory_listeners` the tenants its websocket clients follow;
 * a change to a tenant followed anywhere has its events rendered (only then: a big sync of a
 * tenant nobody follows costs nothing more) and noted in `outpost_inventory_changes`, from
 * which the other collectors send them to their clients, about a second later.
 */
export const INVENTORY_SYNC_SCHEMA = changeFeedSchema("inventory-sync", "outpost_inventory_changes");
export const INVENTORY_LISTENERS_SCHEMA: PgSchema = {
  name: "inventory-listeners",
  migrations: [
    pgBaseline("tenants followed by websocket clients", [
      // kind: `<type code>/<action>` followed in the tenant, or * for a listener of everything.
      "CREATE TABLE IF NOT EXISTS outpost_inventory_listeners (owner TEXT NOT NULL, tenant TEXT NOT NULL, kind TEXT NOT NULL, seen_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (owner, tenant, kind))",
    ]),
  ],
};
/** Followed tenants are noted again this often; a note older than 10 s is a collector gone. */
const INTEREST_MS = 1_000;
/** For a listener following everything (none does today, but InventoryEvents allows it). */
const ALL = "*";

export class InventorySync {
  private readonly feed: ChangeFeed;
  private untap: (() => void) | undefined;
  private relaying = false;
  /** Followed elsewhere: tenants, and interest keys (interestKey); ALL when everything is. */
  private remote = { tenants: new Set<string>(), keys: new Set<string>() };
  private timer: ReturnType<typeof setInterval> | undefined;
  private round: Promise<void> | undefined;
  private pending: { tenant: string; payload: string }[] = [];
  private lastError = "";

  constructor(private readonly o: { sql: SQL; owner: string; events: InventoryEvents; log: Logger; pollMs?: number }) {
    this.feed = new ChangeFeed({
      ...o,
      schema: INVENTORY_SYNC_SCHEMA,
      table: "outpost_inventory_changes",
      what: "inventory changes for websocket clients",
      apply: async (_tenant, payload) => {
        const e = JSON.parse(payload) as InventoryEvent;
        // Listeners run synchronously: the flag covers exactly this announcement.
        this.relaying = true;
        try {
          o.events.publish(e);
        } finally {
          this.relaying = false;
        }
      },
    });
  }

  async start(): Promise<void> {
    await migratePostgres(this.o.sql, INVENTORY_LISTENERS_SCHEMA);
    await this.feed.start();
    this.o.events.remoteInterest = {
      tenant: (tenant) => this.remote.tenants.has(tenant) || this.remote.tenants.has(ALL),
      change: (key) => this.remote.keys.has(key) || this.remote.tenants.has(ALL),
    };
    this.o.events.onNewlyFollowed = () => {
      void this.refresh().then(() => (this.refreshAgain ? this.refresh() : undefined));
    };
    this.untap = this.o.events.tap((e) => {
      if (this.relaying) return;
      // One statement for the events of one change (a sync publishes thousands at once).
      if (this.pending.length === 0) queueMicrotask(() => this.flush());
      this.pending.push({ tenant: e.tenant, payload: JSON.stringify(e) });
    });
    await this.noteInterest();
    this.timer = setInterval(() => void this.refresh(), INTEREST_MS);
    this.timer.unref?.();
  }

  private flush(): void {
    const rows = this.pending;
    this.pending = [];
    this.feed.noteAll(rows);
  }

  /** Set when a refresh is asked for during one: the round running may have missed the change. */
  private refreshAgain = false;

  private refresh(): Promise<void> {
    if (this.round) {
      this.refreshAgain = true;
      return this.round;
    }
    this.refreshAgain = false;
    this.round = this.noteInterest()
      .then(
        () => {
          this.lastError = "";
        },
        (e) => {
          const msg = String(e);
          if (msg !== this.lastError) this.o.log.warn("sharing the tenants followed by inventory websocket clients failed; retrying", { err: msg });
          this.lastError = msg;
        },
      )
      .finally(() => {
        this.round = undefined;
      });
    return this.round;
  }

  /** Notes the tenants followed here, forgets those no longer followed, reads the others'. */
  private async noteInterest(): Promise<void> {
    const mine = this.o.events.followedKeys().map((key) => {
      if (key === undefined) return [ALL, ALL];
      const [tenant, type, action] = key.split("\u0000");
      return [tenant!, `${type}/${action}`];
    });
    await this.o.sql.begin(async (tx) => {
      await tx.unsafe("DELETE FROM outpost_inventory_listeners WHERE owner = $1", [this.o.owner]);
      for (const [tenant, kind] of mine) {
        await tx.unsafe("INSERT INTO outpost_inventory_listeners (owner, tenant, kind, seen_at) VALUES ($1, $2, $3, clock_timestamp())", [this.o.owner, tenant, kind]);
      }
      await tx.unsafe("DELETE FROM outpost_inventory_listeners WHERE seen_at < clock_timestamp() - interval '1 hour'");
    });
    const rows = (await this.o.sql.unsafe(
      "SELECT DISTINCT tenant, kind FROM outpost_inventory_listeners WHERE owner <> $1 AND seen_at > clock_timestamp() - interval '10 seconds'",
      [this.o.owner],
    )) as { tenant: string; kind: string }[];
    const remote = { tenants: new Set<string>(), keys: new Set<string>() };
    for (const r of rows) {
      remote.tenants.add(r.tenant);
      const [type, action] = r.kind.split("/");
      if (type !== undefined && action !== undefined) remote.keys.add(interestKey(r.tenant, type, action));
    }
    this.remote = remote;
  }

  /** For tests and shutdown: a round of both now. */
  async poll(): Promise<void> {
    await this.refresh();
    await this.feed.poll();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.untap?.();
    this.o.events.onNewlyFollowed = () => {};
    this.o.events.remoteInterest = { tenant: () => false, change: () => false };
    this.flush();
    await this.round;
    await this.o.sql.unsafe("DELETE FROM outpost_inventory_listeners WHERE owner = $1", [this.o.owner]).catch(() => undefined);
    await this.feed.close();
  }
}
