import type { SQL } from "bun";
import { postgresProbe } from "../../../src/postgres/probe.ts";
import { reportingFailuresAsync, type StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { type ChangeRow, type ConflictRow, compact, type IdentityRow, type RevisionRow, type StatusRow, toChange, toConflict, toIdentity, toRevision, toStatus } from "./rows.ts";
import type { Claim, ClaimOutcome, ConfigRevision, FeedConfigStatus, FeedIdentity, FeedIdentityView, FleetStore, IdentityConflict, TenantFleet } from "./types.ts";

export interface PostgresFleetStoreOptions {
  /** The collector's pool; the store does not close it. Its tables are migrated (FLEET_PG) before. */
  sql: SQL;
  health?: StorageHealth;
}

type Tx = SQL;
type Param = string | number | null;

/** Fleet management in PostgreSQL, as SqliteFleetStore keeps it in fleet.db; shared by the collectors of one database. */
export class PostgresFleetStore implements FleetStore {
  private readonly sql: SQL;
  private readonly health: StorageHealth | undefined;

  constructor(opts: PostgresFleetStoreOptions) {
    this.sql = opts.sql;
    this.health = opts.health;
    this.health?.registerTarget("fleet", postgresProbe(this.sql, "fleet"));
  }

  private tx<T>(fn: (t: Tx) => Promise<T>): Promise<T> {
    return reportingFailuresAsync(this.health, "fleet", () => this.sql.begin((t) => fn(t as unknown as Tx)) as Promise<T>);
  }

  private async rows<R>(q: Tx, text: string, params: Param[]): Promise<R[]> {
    return (await q.unsafe(text, params)) as R[];
  }

  private async identityRow(q: Tx, tenant: string, feed: string): Promise<IdentityRow | undefined> {
    return (await this.rows<IdentityRow>(q, "SELECT * FROM fleet_identities WHERE tenant = $1 AND feed = $2", [tenant, feed]))[0];
  }

  private log(q: Tx, tenant: string, feed: string, at: number, author: string, action: string, from: string | undefined, to: string | undefined) {
    return q.unsafe("INSERT INTO fleet_identity_log (tenant, feed, at, author, action, from_instance, to_instance) VALUES ($1, $2, $3, $4, $5, $6, $7)", [tenant, feed, at, author, action, from ?? null, to ?? null]);
  }

  async claim(c: Claim): Promise<ClaimOutcome> {
    return this.tx(async (t): Promise<ClaimOutcome> => {
      const tags = JSON.stringify(c.tags);
      const inserted = (await t.unsafe(
        "INSERT INTO fleet_identities (tenant, feed, instance, public_key, host, tags, since, seen_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (tenant, feed) DO NOTHING",
        [c.tenant, c.feed, c.instance, c.publicKey, c.host ?? null, tags, c.at],
      )) as { count: number };
      if (inserted.count === 1) {
        // An identity refused before (the feed was released since) holds it now: not a conflict any more.
        await t.unsafe("DELETE FROM fleet_conflicts WHERE tenant = $1 AND feed = $2 AND instance = $3", [c.tenant, c.feed, c.instance]);
        await this.log(t, c.tenant, c.feed, c.at, "agent", "claimed", undefined, c.instance);
        return { granted: true, first: true, holder: compact(toIdentity((await this.identityRow(t, c.tenant, c.feed))!)) };
      }
      // Locked: a move by an admin on another collector waits for this claim, or this for it.
      const row = (await this.rows<IdentityRow>(t, "SELECT * FROM fleet_identities WHERE tenant = $1 AND feed = $2 FOR UPDATE", [c.tenant, c.feed]))[0]!;
      if (row.instance === c.instance) {
        await t.unsafe("UPDATE fleet_identities SET public_key = $1, host = $2, tags = $3, seen_at = $4 WHERE tenant = $5 AND feed = $6", [c.publicKey, c.host ?? null, tags, c.at, c.tenant, c.feed]);
        return { granted: true, first: false, holder: compact(toIdentity((await this.identityRow(t, c.tenant, c.feed))!)) };
      }
      const conflict = await this.rows<ConflictRow>(
        t,
        `INSERT INTO fleet_conflicts (tenant, feed, instance, public_key, host, first_at, last_at, attempts) VALUES ($1, $2, $3, $4, $5, $6, $6, 1)
         ON CONFLICT (tenant, feed, instance) DO UPDATE SET public_key = excluded.public_key, host = excluded.host,
           last_at = GREATEST(fleet_conflicts.last_at, excluded.last_at), attempts = fleet_conflicts.attempts + 1
         RETURNING *`,
        [c.tenant, c.feed, c.instance, c.publicKey, c.host ?? null, c.at],
      );
      return { granted: false, holder: compact(toIdentity(row)), conflict: compact(toConflict(conflict[0]!)) };
    });
  }

  async identity(tenant: string, feed: string): Promise<FeedIdentity | undefined> {
    const row = await this.identityRow(this.sql, tenant, feed);
    return row ? compact(toIdentity(row)) : undefined;
  }

  async identities(tenant: string): Promise<FeedIdentity[]> {
    return this.identityRows(this.sql, tenant);
  }

  private async identityRows(q: Tx, tenant: string): Promise<FeedIdentity[]> {
    return (await this.rows<IdentityRow>(q, "SELECT * FROM fleet_identities WHERE tenant = $1 ORDER BY feed", [tenant])).map((r) => compact(toIdentity(r)));
  }

  async conflicts(tenant: string, feed?: string): Promise<IdentityConflict[]> {
    return this.conflictRows(this.sql, tenant, feed);
  }

  private async conflictRows(q: Tx, tenant: string, feed?: string): Promise<IdentityConflict[]> {
    const rows =
      feed === undefined
        ? await this.rows<ConflictRow>(q, "SELECT * FROM fleet_conflicts WHERE tenant = $1 ORDER BY first_at, feed, instance", [tenant])
        : await this.rows<ConflictRow>(q, "SELECT * FROM fleet_conflicts WHERE tenant = $1 AND feed = $2 ORDER BY first_at, instance", [tenant, feed]);
    return rows.map((r) => compact(toConflict(r)));
  }

  async dismissConflicts(tenant: string, feed: string, instance?: string): Promise<number> {
    const res = (await reportingFailuresAsync(this.health, "fleet", () =>
      instance === undefined
        ? this.sql.unsafe("DELETE FROM fleet_conflicts WHERE tenant = $1 AND feed = $2", [tenant, feed])
        : this.sql.unsafe("DELETE FROM fleet_conflicts WHERE tenant = $1 AND feed = $2 AND instance = $3", [tenant, feed, instance]),
    )) as { count: number };
    return res.count;
  }

  async moveFeed(tenant: string, feed: string, to: string | undefined, author: string, at: number): Promise<{ from?: string }> {
    return this.tx(async (t) => {
      const current = (await this.rows<IdentityRow>(t, "SELECT * FROM fleet_identities WHERE tenant = $1 AND feed = $2 FOR UPDATE", [tenant, feed]))[0];
      const from = current?.instance;
      if (to === undefined) {
        await t.unsafe("DELETE FROM fleet_identities WHERE tenant = $1 AND feed = $2", [tenant, feed]);
        await this.log(t, tenant, feed, at, author, "released", from, undefined);
        return { from };
      }
      const c = (await this.rows<ConflictRow>(t, "SELECT * FROM fleet_conflicts WHERE tenant = $1 AND feed = $2 AND instance = $3", [tenant, feed, to]))[0];
      await t.unsafe(
        `INSERT INTO fleet_identities (tenant, feed, instance, public_key, host, tags, since, seen_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (tenant, feed) DO UPDATE SET instance = excluded.instance, public_key = excluded.public_key, host = excluded.host, since = excluded.since, seen_at = excluded.seen_at`,
        [tenant, feed, to, c?.public_key ?? null, c?.host ?? null, current?.tags ?? "{}", at, c ? Number(c.last_at) : at],
      );
      await t.unsafe("DELETE FROM fleet_conflicts WHERE tenant = $1 AND feed = $2 AND instance = $3", [tenant, feed, to]);
      await this.log(t, tenant, feed, at, author, "moved", from, to);
      return { from };
    });
  }

  async identityView(tenant: string, feed: string): Promise<FeedIdentityView> {
    return this.snapshot((t) => this.readView(t, tenant, feed));
  }

  async tenantFleet(tenant: string, revisions: number): Promise<TenantFleet> {
    return this.snapshot(async (t) => ({
      identities: await this.identityRows(t, tenant),
      conflicts: await this.conflictRows(t, tenant),
      revisions: await this.revisionRows(t, tenant, revisions),
      configStatuses: await this.statusRows(t, tenant),
    }));
  }

  /** Reads in one transaction of repeatable read: one snapshot for all (read committed takes one per statement). */
  private snapshot<T>(fn: (t: Tx) => Promise<T>): Promise<T> {
    return reportingFailuresAsync(this.health, "fleet", () => this.sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", (t) => fn(t as unknown as Tx)) as Promise<T>);
  }

  private async readView(t: Tx, tenant: string, feed: string): Promise<FeedIdentityView> {
    const row = await this.identityRow(t, tenant, feed);
    const conflicts = await this.conflictRows(t, tenant, feed);
    const changes = (await this.rows<ChangeRow>(t, "SELECT * FROM fleet_identity_log WHERE tenant = $1 AND feed = $2 ORDER BY at, ctid", [tenant, feed])).map((r) => compact(toChange(r)));
    return { ...(row ? { holder: compact(toIdentity(row)) } : {}), conflicts, changes };
  }

  async addRevision(r: Omit<ConfigRevision, "revision">): Promise<ConfigRevision> {
    // Two collectors numbering at once: one insert fails on the key and is numbered again.
    for (let attempt = 1; ; attempt++) {
      try {
        const rows = await reportingFailuresAsync(this.health, "fleet", () =>
          this.rows<{ revision: number | string }>(
            this.sql,
            `INSERT INTO fleet_config_revisions (tenant, revision, target, config, author, at, comment)
             SELECT $1, COALESCE(MAX(revision), 0) + 1, $2, $3, $4, $5, $6 FROM fleet_config_revisions WHERE tenant = $1 RETURNING revision`,
            [r.tenant, JSON.stringify(r.target), JSON.stringify(r.config), r.author, r.at, r.comment ?? null],
          ),
        );
        return compact({ ...r, revision: Number(rows[0]!.revision) });
      } catch (e) {
        if (attempt >= 5 || (e as { errno?: string }).errno !== "23505") throw e;
      }
    }
  }

  async revisions(tenant: string, limit: number): Promise<ConfigRevision[]> {
    return this.revisionRows(this.sql, tenant, limit);
  }

  private async revisionRows(q: Tx, tenant: string, limit: number): Promise<ConfigRevision[]> {
    return (await this.rows<RevisionRow>(q, "SELECT * FROM fleet_config_revisions WHERE tenant = $1 ORDER BY revision DESC LIMIT $2", [tenant, limit])).map((r) => compact(toRevision(r)));
  }

  async revision(tenant: string, revision: number): Promise<ConfigRevision | undefined> {
    const row = (await this.rows<RevisionRow>(this.sql, "SELECT * FROM fleet_config_revisions WHERE tenant = $1 AND revision = $2", [tenant, revision]))[0];
    return row ? compact(toRevision(row)) : undefined;
  }

  async setConfigStatus(s: FeedConfigStatus): Promise<void> {
    await reportingFailuresAsync(this.health, "fleet", () =>
      this.sql.unsafe(
        `INSERT INTO fleet_config_status (tenant, feed, instance, revision, state, running, error, kept, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (tenant, feed) DO UPDATE SET instance = excluded.instance, revision = excluded.revision, state = excluded.state, running = excluded.running,
           error = excluded.error, kept = excluded.kept, at = excluded.at`,
        [s.tenant, s.feed, s.instance ?? null, s.revision, s.state, s.running, s.error ?? null, s.kept?.length ? JSON.stringify(s.kept) : null, s.at],
      ),
    );
  }

  async configStatuses(tenant: string): Promise<FeedConfigStatus[]> {
    return this.statusRows(this.sql, tenant);
  }

  private async statusRows(q: Tx, tenant: string): Promise<FeedConfigStatus[]> {
    return (await this.rows<StatusRow>(q, "SELECT * FROM fleet_config_status WHERE tenant = $1 ORDER BY feed", [tenant])).map((r) => compact(toStatus(r)));
  }

  async close(): Promise<void> {
    this.health?.unregister("fleet");
  }
}
