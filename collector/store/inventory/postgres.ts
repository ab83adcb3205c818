import type { SQL } from "bun";
import { numbered } from "../../../src/postgres/connect.ts";
import { postgresProbe } from "../../../src/postgres/probe.ts";
import { reportingFailuresAsync, type StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { SerialLock } from "./serial-lock.ts";
import { type InventorySql, SqlInventoryTx } from "./sql-tx.ts";
import type { InventoryReader, InventoryStore, InventoryTx } from "./types.ts";

/**
 * Key of the advisory lock every inventory write transaction takes, on every collector sharing
 * the database: one writer at a time, as SQLite's BEGIN IMMEDIATE gives. Syncs read, compare and
 * then write; two of them interleaved on different collectors could otherwise both create.
 */
const INVENTORY_WRITE_LOCK = 0x696e76; // "inv"

/** A transaction's connection behind the shared statements. */
function postgresExecutor(t: SQL): InventorySql {
  return {
    all: async (sql, params) => (await t.unsafe(numbered(sql), params)) as unknown[],
    async run(sql, params) {
      await t.unsafe(numbered(sql), params);
    },
    // PostgreSQL keeps a failed transaction open (aborted) until it is rolled back.
    inTransaction: () => true,
  };
}

/**
 * The inventory in PostgreSQL, with the SQLite store's statements (sql-tx.ts) and guarantees:
 * transactions and reads of this process run one at a time in arrival order; a write transaction
 * also excludes those of other collectors (advisory lock); a read sees one snapshot throughout.
 */
class PostgresInventoryStore implements InventoryStore {
  private readonly lock = new SerialLock();

  constructor(
    private readonly sql: SQL,
    private readonly health?: StorageHealth,
  ) {
    health?.registerTarget("inventory", postgresProbe(sql, "inventory"));
  }

  transaction<T>(fn: (tx: InventoryTx) => Promise<T>): Promise<T> {
    return this.lock.run(() =>
      reportingFailuresAsync(this.health, "inventory", async () =>
        (await this.sql.begin(async (t) => {
          await t.unsafe("SELECT pg_advisory_xact_lock($1)", [INVENTORY_WRITE_LOCK]);
          return fn(new SqlInventoryTx(postgresExecutor(t)));
        })) as T,
      ),
    );
  }

  read<T>(fn: (r: InventoryReader) => Promise<T>): Promise<T> {
    return this.lock.run(
      async () => (await this.sql.begin("ISOLATION LEVEL REPEATABLE READ READ ONLY", (t) => fn(new SqlInventoryTx(postgresExecutor(t))))) as T,
    );
  }

  async close(): Promise<void> {
    this.health?.unregister("inventory");
    // Let what is queued finish; the pool is the collector's to close.
    await this.lock.run(async () => undefined);
  }
}

/** The inventory store on `sql` (the collector's pool; its tables migrated with INVENTORY_PG before). */
export function openPostgresInventoryStore(sql: SQL, opts: { health?: StorageHealth } = {}): InventoryStore {
  return new PostgresInventoryStore(sql, opts.health);
}
