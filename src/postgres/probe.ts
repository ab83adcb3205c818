import type { SQL } from "bun";
import type { ProbeTarget } from "../sqlite/storage-health.ts";

/**
 * The storage-health probe of a store in PostgreSQL: one row per store, rewritten. It succeeds
 * once the server answers and takes writes again (src/sqlite/storage-health.ts).
 */
export function postgresProbe(sql: SQL, store: string, now: () => number = Date.now): ProbeTarget {
  return {
    async probe() {
      await sql.unsafe("CREATE TABLE IF NOT EXISTS outpost_storage_probe (store TEXT PRIMARY KEY, at BIGINT NOT NULL)");
      await sql.unsafe("INSERT INTO outpost_storage_probe (store, at) VALUES ($1, $2) ON CONFLICT (store) DO UPDATE SET at = excluded.at", [store, now()]);
    },
  };
}
