import type { Database } from "bun:sqlite";
import { type OpenOptions, openDatabase } from "../../../src/sqlite/open.ts";
import { migrate } from "../../../src/sqlite/migrations.ts";
import type { StorageHealth } from "../../../src/sqlite/storage-health.ts";
import { INVENTORY_DB } from "./schema.ts";
import { SerialLock } from "./serial-lock.ts";
import { type InventorySql, SqlInventoryTx } from "./sql-tx.ts";
import type { InventoryReader, InventoryStore, InventoryTx } from "./types.ts";

/** bun:sqlite behind the shared statements (synchronous calls, answered as resolved promises). */
function sqliteExecutor(db: Database): InventorySql {
  return {
    async all(sql, params) {
      return db.query(sql).all(...params);
    },
    async run(sql, params) {
      db.query(sql).run(...params);
    },
    inTransaction: () => db.inTransaction,
  };
}

class SqliteInventoryStore implements InventoryStore {
  private readonly lock = new SerialLock();
  private readonly tx: SqlInventoryTx;

  constructor(
    private readonly db: Database,
    private readonly health?: StorageHealth,
  ) {
    migrate(db, INVENTORY_DB);
    this.tx = new SqlInventoryTx(sqliteExecutor(db));
    health?.register("inventory", db);
  }

  transaction<T>(fn: (tx: InventoryTx) => Promise<T>): Promise<T> {
    return this.lock.run(async () => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const result = await fn(this.tx);
        this.db.exec("COMMIT");
        return result;
      } catch (e) {
        // SQLite may already have rolled back (a full disk at COMMIT): a second ROLLBACK would
        // fail and hide the real error.
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        this.health?.report(e, "inventory");
        throw e;
      }
    });
  }

  read<T>(fn: (r: InventoryReader) => Promise<T>): Promise<T> {
    return this.lock.run(() => fn(this.tx));
  }

  async close(): Promise<void> {
    this.health?.unregister("inventory");
    await this.lock.run(async () => this.db.close());
  }
}

/** Opens (creating if needed) the inventory database at `path`, e.g. `<data-dir>/inventory.db`. */
export function openSqliteInventoryStore(path: string, opts: OpenOptions & { health?: StorageHealth } = {}): InventoryStore {
  return new SqliteInventoryStore(openDatabase(path, opts), opts.health);
}
