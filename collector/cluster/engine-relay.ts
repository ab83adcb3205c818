import type { SQL } from "bun";
import type { EngineData } from "../../src/alerts/engine/evaluate.ts";
import type { Logger } from "../../src/log/logger.ts";
import { type Lease, partitionOf } from "../../src/partitions.ts";
import type { LeaseKeeper } from "../../src/postgres/leases.ts";
import { migratePostgres, type PgSchema, pgBaseline } from "../../src/postgres/migrations.ts";
import type { WrittenPoints } from "../events/points-bus.ts";

/**
 * Trigger evaluation done once when several collectors share a database: a tenant's triggers
 * are evaluated by the collector holding the lease of the tenant's partition. A collector that
 * stores points of a tenant it does not own puts the engine data (only metrics some trigger
 * watches) in `outpost_engine_inbox`; the owner reads its partitions' rows, evaluates them and
 * deletes them under its lease's fence. Rows wait there while nobody holds the partition (its
 * owner died): the next owner evaluates them, so nothing is lost across a takeover.
 */
export const ENGINE_RELAY_SCHEMA: PgSchema = {
  name: "engine-relay",
  migrations: [
    pgBaseline("engine inbox", [
      "CREATE TABLE IF NOT EXISTS outpost_engine_inbox (id BIGSERIAL PRIMARY KEY, partition INTEGER NOT NULL, tenant TEXT NOT NULL, data TEXT NOT NULL)",
      "CREATE INDEX IF NOT EXISTS outpost_engine_inbox_partition ON outpost_engine_inbox (partition, id)",
    ]),
  ],
};

/** What the relay needs of the alerting service's data feed (collector/alerts/data-feed.ts). */
export interface RelayFeed {
  watchedData(p: WrittenPoints): EngineData[];
  /** Evaluates; what fires is stored only while `leaseOf`'s lease of its tenant is still held. */
  evaluate(data: readonly EngineData[], leaseOf: (tenantId: string) => Lease | undefined): Promise<void>;
  /** Reloads the stored triggers of the tenants `owns` accepts. */
  adopt(owns: (tenantId: string) => boolean): Promise<number>;
}

export interface EngineRelayOptions {
  sql: SQL;
  keeper: LeaseKeeper;
  feed: RelayFeed;
  log: Logger;
  /** How often the owner looks for relayed data. */
  pollMs?: number;
  /** Rows read per round. */
  batch?: number;
}

interface InboxRow {
  id: string | number | bigint;
  partition: number;
  tenant: string;
  data: string;
}

export class EngineRelay {
  private timer: ReturnType<typeof setInterval> | undefined;
  private round: Promise<void> | undefined;
  private readonly sending = new Set<Promise<void>>();
  private lastError = "";
  /** Partition → generation whose triggers the engine has as stored since the lease was taken. */
  private adopted = new Map<number, number>();

  constructor(private readonly o: EngineRelayOptions) {}

  /**
   * `loadedUnder`: the leases held before the engine loaded every trigger, whose triggers it
   * therefore has as stored. A lease taken later is adopted at the first round.
   */
  async start(loadedUnder: readonly Lease[]): Promise<void> {
    await migratePostgres(this.o.sql, ENGINE_RELAY_SCHEMA);
    for (const l of loadedUnder) this.adopted.set(l.partition, l.generation);
    this.timer = setInterval(() => void this.poll(), this.o.pollMs ?? 200);
    this.timer.unref?.();
  }

  /** The PointsBus listener: evaluated here when this collector owns the tenant, relayed otherwise. */
  readonly onPoints = (p: WrittenPoints): void => {
    const data = this.o.feed.watchedData(p);
    if (data.length === 0) return;
    const lease = this.o.keeper.owns(p.tenant);
    // A lease just taken waits for its adoption (drainInbox): until then the engine may have the
    // triggers as they were before the previous holder's last changes (an autoDisable), so the
    // data waits in the inbox as another collector's would.
    if (lease && this.adopted.get(lease.partition) === lease.generation) {
      this.o.feed.evaluate(data, () => lease).catch((e) => this.o.log.error("trigger evaluation failed", { tenant: p.tenant, err: String(e) }));
      return;
    }
    const sent = this.o.sql
      .unsafe("INSERT INTO outpost_engine_inbox (partition, tenant, data) VALUES ($1, $2, $3)", [
        partitionOf(p.tenant, this.o.keeper.partitions),
        p.tenant,
        JSON.stringify(data),
      ])
      .then(
        () => undefined,
        (e) => this.o.log.error("relaying data to the collector evaluating its triggers failed: these points are not evaluated", { tenant: p.tenant, err: String(e) }),
      )
      .finally(() => this.sending.delete(sent));
    this.sending.add(sent);
  };

  /** One round: evaluates the relayed data of the partitions held, oldest first. */
  poll(): Promise<void> {
    this.round ??= this.drainInbox()
      .then(
        () => {
          this.lastError = "";
        },
        (e) => {
          const msg = String(e);
          if (msg !== this.lastError) this.o.log.warn("reading relayed trigger data failed; retrying", { err: msg });
          this.lastError = msg;
        },
      )
      .finally(() => {
        this.round = undefined;
      });
    return this.round;
  }

  private async drainInbox(): Promise<void> {
    const leases = this.o.keeper.leases();
    if (leases.length === 0) return;
    // Partitions taken since the last round: their triggers may have changed on their former owner.
    const taken = new Set(leases.filter((l) => this.adopted.get(l.partition) !== l.generation).map((l) => l.partition));
    if (taken.size > 0) {
      const n = this.o.keeper.partitions;
      const loaded = await this.o.feed.adopt((tenant) => taken.has(partitionOf(tenant, n)));
      this.adopted = new Map(leases.map((l) => [l.partition, l.generation]));
      this.o.log.info("triggers of the partitions taken reloaded as stored", { partitions: [...taken].join(","), triggers: loaded });
    }
    const rows = (await this.o.sql.unsafe(
      `SELECT id, partition, tenant, data FROM outpost_engine_inbox WHERE partition IN (${leases.map((l) => l.partition).join(",")}) ORDER BY id LIMIT $1`,
      [this.o.batch ?? 1000],
    )) as InboxRow[];
    if (rows.length === 0) return;
    const n = this.o.keeper.partitions;
    const byPartition = new Map(leases.map((l) => [l.partition, l]));
    await this.o.feed.evaluate(
      rows.flatMap((r) => JSON.parse(r.data) as EngineData[]),
      (tenant) => byPartition.get(partitionOf(tenant, n)),
    );
    const ids = rows.map((r) => String(r.id));
    if (!ids.every((id) => /^\d+$/.test(id))) throw new Error("unexpected inbox ids");
    const used = new Set(rows.map((r) => r.partition));
    // Deleted only while the leases are still ours: after a takeover the rows stay for the new owner.
    await this.o.sql.begin(async (tx) => {
      for (const l of leases) if (used.has(l.partition)) await this.o.keeper.fence(tx, l);
      await tx.unsafe(`DELETE FROM outpost_engine_inbox WHERE id IN (${ids.join(",")})`);
    });
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.round;
    await Promise.all([...this.sending]);
  }
}
