import type { SQL } from "bun";
import { type Lease, type Ownership, partitionOf, sameLease } from "../partitions.ts";
import { migratePostgres, type PgSchema, pgBaseline } from "./migrations.ts";

/**
 * Leases in PostgreSQL: the work of several collectors on one database (trigger evaluation,
 * actions, retention...) is divided into partitions, and each partition is done by the one
 * collector holding its lease. A holder renews its leases every `renewMs`; a lease not renewed
 * for `ttlMs` may be taken by another collector, which increments its generation (the fencing
 * token): a write stamped with an older generation is refused by `fence`. Collectors register
 * themselves in `outpost_collectors`, and each takes at most its share (partitions ÷ live
 * collectors, rounded up), so the partitions spread over the live collectors. Every time is the
 * database's clock (clock_timestamp()), so clocks that differ between hosts do not matter.
 */
export const LEASES_SCHEMA: PgSchema = {
  name: "leases",
  migrations: [
    pgBaseline("leases and collectors", [
      `CREATE TABLE IF NOT EXISTS outpost_leases (
         partition INTEGER PRIMARY KEY,
         owner TEXT,
         generation BIGINT NOT NULL DEFAULT 0,
         expires_at TIMESTAMPTZ NOT NULL DEFAULT '-infinity'
       )`,
      `CREATE TABLE IF NOT EXISTS outpost_collectors (owner TEXT PRIMARY KEY, seen_at TIMESTAMPTZ NOT NULL)`,
    ]),
  ],
};

export interface LeaseOptions {
  /** This collector's name in the tables; unique per running process. */
  owner: string;
  /** Partitions of the work; the same on every collector of a database. */
  partitions?: number;
  /** A lease not renewed for this long may be taken over. */
  ttlMs?: number;
  /** How often leases are renewed and free ones looked for. */
  renewMs?: number;
  /** Called after a round in which the set of leases held changed (taken, lost or released). */
  onChange?(held: readonly Lease[]): void;
  /** A round that failed (the database unreachable...): the leases lapse by themselves. */
  onError?(err: unknown): void;
}

/** Thrown by `fence` when the lease is no longer this collector's (taken over or lapsed). */
export class StaleLeaseError extends Error {
  constructor(
    readonly partition: number,
    readonly generation: number,
  ) {
    super(`lease of partition ${partition} at generation ${generation} is no longer held: another collector took it over`);
  }
}

export const DEFAULT_PARTITIONS = 16;
export const DEFAULT_TTL_MS = 10_000;
export const DEFAULT_RENEW_MS = 2_000;

interface Row {
  partition: number;
  generation: number | bigint | string;
}

export class LeaseKeeper implements Ownership {
  readonly owner: string;
  readonly partitions: number;
  private readonly ttlMs: number;
  private readonly renewMs: number;
  private held = new Map<number, number>(); // partition → generation
  /** performance.now() until which the held leases are surely still ours. */
  private validUntil = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private round: Promise<void> | undefined;

  constructor(
    private readonly sql: SQL,
    private readonly opts: LeaseOptions,
  ) {
    this.owner = opts.owner;
    this.partitions = opts.partitions ?? DEFAULT_PARTITIONS;
    this.ttlMs = opts.ttlMs ?? DEFAULT_TTL_MS;
    this.renewMs = opts.renewMs ?? DEFAULT_RENEW_MS;
    if (!Number.isInteger(this.partitions) || this.partitions < 1) throw new Error(`partitions must be a positive integer, not ${this.partitions}`);
    if (this.renewMs * 2 > this.ttlMs) throw new Error(`leases must be renewed at least twice per ttl (renew ${this.renewMs} ms, ttl ${this.ttlMs} ms)`);
  }

  /** Creates the tables and partitions if needed, takes a first share, then renews on a timer. */
  async start(): Promise<void> {
    await migratePostgres(this.sql, LEASES_SCHEMA);
    await this.sql.unsafe(
      `INSERT INTO outpost_leases (partition) SELECT generate_series(0, ${this.partitions - 1}) ON CONFLICT (partition) DO NOTHING`,
    );
    const [{ n }] = await this.sql.unsafe("SELECT count(*)::int AS n FROM outpost_leases");
    if (Number(n) !== this.partitions) {
      throw new Error(`the database's work is divided into ${n} partitions, this collector was told ${this.partitions}: every collector must use the same number`);
    }
    await this.tick();
    this.timer = setInterval(() => void this.tick(), this.renewMs);
    this.timer.unref?.();
  }

  /**
   * Stops renewing. With `release` (a clean stop) the leases are handed back at once, so others
   * take them at their next round; without, they lapse after the ttl, as when a collector dies.
   */
  async stop({ release = true } = {}): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.round;
    const had = this.held.size > 0;
    this.held = new Map();
    this.validUntil = 0;
    if (release) {
      // Best effort: a database out of reach lets the leases lapse after the ttl instead.
      try {
        await this.sql.unsafe("UPDATE outpost_leases SET owner = NULL, expires_at = '-infinity' WHERE owner = $1", [this.owner]);
        await this.sql.unsafe("DELETE FROM outpost_collectors WHERE owner = $1", [this.owner]);
      } catch (e) {
        this.opts.onError?.(e);
      }
    }
    if (had) this.opts.onChange?.([]);
  }

  /** The leases held now (none once they may have lapsed without a renewal). */
  leases(): Lease[] {
    if (performance.now() >= this.validUntil) return [];
    return [...this.held].map(([partition, generation]) => ({ partition, generation })).sort((a, b) => a.partition - b.partition);
  }

  owns(key: string): Lease | undefined {
    if (performance.now() >= this.validUntil) return undefined;
    const partition = partitionOf(key, this.partitions);
    const generation = this.held.get(partition);
    return generation === undefined ? undefined : { partition, generation };
  }

  /**
   * Inside a transaction doing a partition's work: refuses (StaleLeaseError) unless the lease is
   * still this collector's at that generation, and holds it (a row lock) until the transaction
   * ends, so a takeover waits for the work to commit rather than overlapping it.
   */
  fence(tx: SQL, lease: Lease): Promise<void> {
    return this.lock(tx, lease, true);
  }

  /**
   * Like `fence`, but a lease that lapsed while nobody took it still passes: the row names this
   * collector at that generation, so no other collector has done the partition's work since
   * (taking it increments the generation), and the next round renews it at the same generation.
   * For writes that must happen once whoever does them (what a trigger fired), where a refusal
   * loses the write rather than delaying it.
   */
  fenceGeneration(tx: SQL, lease: Lease): Promise<void> {
    return this.lock(tx, lease, false);
  }

  /** The lease's row, locked until the transaction ends, or StaleLeaseError (`unexpired`: lapsed ones too). */
  private async lock(tx: SQL, lease: Lease, unexpired: boolean): Promise<void> {
    const rows = await tx.unsafe(
      `SELECT 1 FROM outpost_leases WHERE partition = $1 AND owner = $2 AND generation = $3${unexpired ? " AND expires_at > clock_timestamp()" : ""} FOR SHARE`,
      [lease.partition, this.owner, lease.generation],
    );
    if (rows.length === 0) throw new StaleLeaseError(lease.partition, lease.generation);
  }

  /**
   * A fence refused this lease: another collector took the partition. Forgotten now rather than
   * at the next round, so that this collector stops doing its work at once.
   */
  lost(lease: Lease): void {
    if (this.held.get(lease.partition) !== lease.generation) return;
    this.held.delete(lease.partition);
    this.opts.onChange?.(this.leases());
  }

  /** One round: say we are alive, renew, then give back or take partitions towards our share. */
  tick(): Promise<void> {
    this.round ??= this.runRound().finally(() => {
      this.round = undefined;
    });
    return this.round;
  }

  private async runRound(): Promise<void> {
    const started = performance.now();
    const before = this.leases();
    try {
      const ttl = `${this.ttlMs} milliseconds`;
      const next = new Map<number, number>();
      await this.sql.begin(async (tx) => {
        await tx.unsafe(
          "INSERT INTO outpost_collectors (owner, seen_at) VALUES ($1, clock_timestamp()) ON CONFLICT (owner) DO UPDATE SET seen_at = excluded.seen_at",
          [this.owner],
        );
        const renewed = await tx.unsafe(
          "UPDATE outpost_leases SET expires_at = clock_timestamp() + $2::interval WHERE owner = $1 RETURNING partition, generation",
          [this.owner, ttl],
        );
        for (const r of renewed as Row[]) next.set(r.partition, Number(r.generation));
        const [{ live }] = await tx.unsafe("SELECT count(*)::int AS live FROM outpost_collectors WHERE seen_at > clock_timestamp() - $1::interval", [ttl]);
        const share = Math.ceil(this.partitions / Math.max(1, Number(live)));
        if (next.size > share) {
          const excess = [...next.keys()].sort((a, b) => b - a).slice(0, next.size - share);
          await tx.unsafe(`UPDATE outpost_leases SET owner = NULL, expires_at = '-infinity' WHERE owner = $1 AND partition IN (${excess.join(",")})`, [
            this.owner,
          ]);
          for (const p of excess) next.delete(p);
        } else if (next.size < share) {
          // SKIP LOCKED: partitions another collector is taking right now are left to it.
          const taken = await tx.unsafe(
            `UPDATE outpost_leases SET owner = $1, generation = generation + 1, expires_at = clock_timestamp() + $2::interval
             WHERE partition IN (
               SELECT partition FROM outpost_leases WHERE owner IS NULL OR expires_at <= clock_timestamp()
               ORDER BY partition LIMIT $3 FOR UPDATE SKIP LOCKED)
             RETURNING partition, generation`,
            [this.owner, ttl, share - next.size],
          );
          for (const r of taken as Row[]) next.set(r.partition, Number(r.generation));
        }
        // Old collectors' rows, so that the table does not grow with every restart.
        await tx.unsafe("DELETE FROM outpost_collectors WHERE seen_at < clock_timestamp() - interval '1 day'");
      });
      this.held = next;
      // Measured from before the round: the database's expiry is later than this.
      this.validUntil = started + this.ttlMs;
    } catch (e) {
      this.opts.onError?.(e);
    }
    const after = this.leases();
    if (!sameLeases(before, after)) this.opts.onChange?.(after);
  }
}

function sameLeases(a: readonly Lease[], b: readonly Lease[]): boolean {
  return a.length === b.length && a.every((l, i) => sameLease(l, b[i]));
}
