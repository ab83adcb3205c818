import type { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Logger } from "../../../src/log/logger.ts";
import { migrate } from "../../../src/sqlite/migrations.ts";
import { openDatabase } from "../../../src/sqlite/open.ts";
import { reportingFailures, type StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { type ChangeRow, type ConflictRow, compact, type IdentityRow, type RevisionRow, type StatusRow, toChange, toConflict, toIdentity, toRevision, toStatus } from "./rows.ts";
import { FLEET_DB } from "./schema.ts";
import type { Claim, ClaimOutcome, ConfigRevision, FeedConfigStatus, FeedIdentity, FeedIdentityView, FleetStore, IdentityConflict, TenantFleet } from "./types.ts";

export interface SqliteFleetStoreOptions {
  dataDir: string;
  synchronous?: "FULL" | "NORMAL";
  log: Logger;
  health?: StorageHealth;
}

/** Fleet management in its own database file, fleet.db. */
export class SqliteFleetStore implements FleetStore {
  private readonly db: Database;
  private readonly health: StorageHealth | undefined;

  constructor(opts: SqliteFleetStoreOptions) {
    this.db = openDatabase(join(opts.dataDir, "fleet.db"), { synchronous: opts.synchronous ?? "FULL", cacheKiB: 1024 });
    migrate(this.db, FLEET_DB, (m) => opts.log.info(`upgraded ${FLEET_DB.name} to schema ${m.version}`, { step: m.description }));
    this.health = opts.health;
    this.health?.register("fleet", this.db);
  }

  private tx<T>(fn: () => T): T {
    return reportingFailures(this.health, "fleet", () => this.db.transaction(fn)());
  }

  private identityRow(tenant: string, feed: string): IdentityRow | null {
    return this.db.query<IdentityRow, [string, string]>("SELECT * FROM fleet_identities WHERE tenant = ? AND feed = ?").get(tenant, feed);
  }

  async claim(c: Claim): Promise<ClaimOutcome> {
    return this.tx((): ClaimOutcome => {
      const tags = JSON.stringify(c.tags);
      const inserted = this.db
        .query("INSERT INTO fleet_identities (tenant, feed, instance, public_key, host, tags, since, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant, feed) DO NOTHING")
        .run(c.tenant, c.feed, c.instance, c.publicKey, c.host ?? null, tags, c.at, c.at).changes;
      if (inserted === 1) {
        // An identity refused before (the feed was released since) holds it now: not a conflict any more.
        this.db.query("DELETE FROM fleet_conflicts WHERE tenant = ? AND feed = ? AND instance = ?").run(c.tenant, c.feed, c.instance);
        this.log(c.tenant, c.feed, c.at, "agent", "claimed", undefined, c.instance);
        return { granted: true, first: true, holder: compact(toIdentity(this.identityRow(c.tenant, c.feed)!)) };
      }
      const row = this.identityRow(c.tenant, c.feed)!;
      if (row.instance === c.instance) {
        this.db.query("UPDATE fleet_identities SET public_key = ?, host = ?, tags = ?, seen_at = ? WHERE tenant = ? AND feed = ?").run(c.publicKey, c.host ?? null, tags, c.at, c.tenant, c.feed);
        return { granted: true, first: false, holder: compact(toIdentity(this.identityRow(c.tenant, c.feed)!)) };
      }
      this.db
        .query(
          `INSERT INTO fleet_conflicts (tenant, feed, instance, public_key, host, first_at, last_at, attempts) VALUES (?, ?, ?, ?, ?, ?, ?, 1)
           ON CONFLICT (tenant, feed, instance) DO UPDATE SET public_key = excluded.public_key, host = excluded.host, last_at = MAX(last_at, excluded.last_at), attempts = attempts + 1`,
        )
        .run(c.tenant, c.feed, c.instance, c.publicKey, c.host ?? null, c.at, c.at);
      const conflict = this.db.query<ConflictRow, [string, string, string]>("SELECT * FROM fleet_conflicts WHERE tenant = ? AND feed = ? AND instance = ?").get(c.tenant, c.feed, c.instance)!;
      return { granted: false, holder: compact(toIdentity(row)), conflict: compact(toConflict(conflict)) };
    });
  }

  private log(tenant: string, feed: string, at: number, author: string, action: string, from: string | undefined, to: string | undefined): void {
    this.db.query("INSERT INTO fleet_identity_log (tenant, feed, at, author, action, from_instance, to_instance) VALUES (?, ?, ?, ?, ?, ?, ?)").run(tenant, feed, at, author, action, from ?? null, to ?? null);
  }

  async identity(tenant: string, feed: string): Promise<FeedIdentity | undefined> {
    const row = this.identityRow(tenant, feed);
    return row ? compact(toIdentity(row)) : undefined;
  }

  async identities(tenant: string): Promise<FeedIdentity[]> {
    return this.identityRows(tenant);
  }

  private identityRows(tenant: string): FeedIdentity[] {
    return this.db
      .query<IdentityRow, [string]>("SELECT * FROM fleet_identities WHERE tenant = ? ORDER BY feed")
      .all(tenant)
      .map((r) => compact(toIdentity(r)));
  }

  async conflicts(tenant: string, feed?: string): Promise<IdentityConflict[]> {
    return this.conflictRows(tenant, feed);
  }

  private conflictRows(tenant: string, feed?: string): IdentityConflict[] {
    const rows =
      feed === undefined
        ? this.db.query<ConflictRow, [string]>("SELECT * FROM fleet_conflicts WHERE tenant = ? ORDER BY first_at, feed, instance").all(tenant)
        : this.db.query<ConflictRow, [string, string]>("SELECT * FROM fleet_conflicts WHERE tenant = ? AND feed = ? ORDER BY first_at, instance").all(tenant, feed);
    return rows.map((r) => compact(toConflict(r)));
  }

  async dismissConflicts(tenant: string, feed: string, instance?: string): Promise<number> {
    return this.tx(() =>
      instance === undefined
        ? this.db.query("DELETE FROM fleet_conflicts WHERE tenant = ? AND feed = ?").run(tenant, feed).changes
        : this.db.query("DELETE FROM fleet_conflicts WHERE tenant = ? AND feed = ? AND instance = ?").run(tenant, feed, instance).changes,
    );
  }

  async moveFeed(tenant: string, feed: string, to: string | undefined, author: string, at: number): Promise<{ from?: string }> {
    return this.tx(() => {
      const current = this.identityRow(tenant, feed);
      const from = current?.instance;
      if (to === undefined) {
        this.db.query("DELETE FROM fleet_identities WHERE tenant = ? AND feed = ?").run(tenant, feed);
        this.log(tenant, feed, at, author, "released", from, undefined);
        return { from };
      }
      const c = this.db.query<ConflictRow, [string, string, string]>("SELECT * FROM fleet_conflicts WHERE tenant = ? AND feed = ? AND instance = ?").get(tenant, feed, to);
      this.db
        .query(
          `INSERT INTO fleet_identities (tenant, feed, instance, public_key, host, tags, since, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (tenant, feed) DO UPDATE SET instance = excluded.instance, public_key = excluded.public_key, host = excluded.host, since = excluded.since, seen_at = excluded.seen_at`,
        )
        .run(tenant, feed, to, c?.public_key ?? null, c?.host ?? null, current?.tags ?? "{}", at, c ? Number(c.last_at) : at);
      this.db.query("DELETE FROM fleet_conflicts WHERE tenant = ? AND feed = ? AND instance = ?").run(tenant, feed, to);
      this.log(tenant, feed, at, author, "moved", from, to);
      return { from };
    });
  }

  async identityView(tenant: string, feed: string): Promise<FeedIdentityView> {
    // One snapshot as it is: the reads run synchronously, and every write to fleet.db is this
    // process's, also synchronous, so none can fall between them (a claim's holder and its change).
    const row = this.identityRow(tenant, feed);
    const changes = this.db
      .query<ChangeRow, [string, string]>("SELECT * FROM fleet_identity_log WHERE tenant = ? AND feed = ? ORDER BY at, rowid")
      .all(tenant, feed)
      .map((r) => compact(toChange(r)));
    return { ...(row ? { holder: compact(toIdentity(row)) } : {}), conflicts: this.conflictRows(tenant, feed), changes };
  }

  async tenantFleet(tenant: string, revisions: number): Promise<TenantFleet> {
    // Synchronous reads: one snapshot, as identityView.
    return {
      identities: this.identityRows(tenant),
      conflicts: this.conflictRows(tenant),
      revisions: this.revisionRows(tenant, revisions),
      configStatuses: this.statusRows(tenant),
    };
  }

  async addRevision(r: Omit<ConfigRevision, "revision">): Promise<ConfigRevision> {
    return this.tx(() => {
      const last = this.db.query<{ n: number | null }, [string]>("SELECT MAX(revision) AS n FROM fleet_config_revisions WHERE tenant = ?").get(r.tenant);
      const revision = (last?.n ?? 0) + 1;
      this.db
        .query("INSERT INTO fleet_config_revisions (tenant, revision, target, config, author, at, comment) VALUES (?, ?, ?, ?, ?, ?, ?)")
        .run(r.tenant, revision, JSON.stringify(r.target), JSON.stringify(r.config), r.author, r.at, r.comment ?? null);
      return compact({ ...r, revision });
    });
  }

  async revisions(tenant: string, limit: number): Promise<ConfigRevision[]> {
    return this.revisionRows(tenant, limit);
  }

  private revisionRows(tenant: string, limit: number): ConfigRevision[] {
    return this.db
      .query<RevisionRow, [string, number]>("SELECT * FROM fleet_config_revisions WHERE tenant = ? ORDER BY revision DESC LIMIT ?")
      .all(tenant, limit)
      .map((r) => compact(toRevision(r)));
  }

  async revision(tenant: string, revision: number): Promise<ConfigRevision | undefined> {
    const row = this.db.query<RevisionRow, [string, number]>("SELECT * FROM fleet_config_revisions WHERE tenant = ? AND revision = ?").get(tenant, revision);
    return row ? compact(toRevision(row)) : undefined;
  }

  async setConfigStatus(s: FeedConfigStatus): Promise<void> {
    this.tx(() =>
      this.db
        .query(
          `INSERT INTO fleet_config_status (tenant, feed, instance, revision, state, running, error, kept, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (tenant, feed) DO UPDATE SET instance = excluded.instance, revision = excluded.revision, state = excluded.state, running = excluded.running,
             error = excluded.error, kept = excluded.kept, at = excluded.at`,
        )
        .run(s.tenant, s.feed, s.instance ?? null, s.revision, s.state, s.running, s.error ?? null, s.kept?.length ? JSON.stringify(s.kept) : null, s.at),
    );
  }

  async configStatuses(tenant: string): Promise<FeedConfigStatus[]> {
    return this.statusRows(tenant);
  }

  private statusRows(tenant: string): FeedConfigStatus[] {
    return this.db
      .query<StatusRow, [string]>("SELECT * FROM fleet_config_status WHERE tenant = ? ORDER BY feed")
      .all(tenant)
      .map((r) => compact(toStatus(r)));
  }

  async close(): Promise<void> {
    this.health?.unregister("fleet");
    this.db.close();
  }
}
