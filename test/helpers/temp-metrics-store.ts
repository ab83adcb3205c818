import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { SqliteMetricsStoreOptions } from "../../collector/store/metrics/sqlite/state.ts";
import { openSqliteMetricsStore, type SqliteMetricsStore } from "../../collector/store/metrics/sqlite/store.ts";

/**
 * Opens SQLite metrics stores, each in a temporary folder of its own, and closes and removes
 * them all after each test of the calling file.
 */
export function sqliteMetricsStoresPerTest(prefix: string): (opts: Omit<SqliteMetricsStoreOptions, "dataDir">) => Promise<SqliteMetricsStore> {
  const dirs: string[] = [];
  const stores: SqliteMetricsStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) if (s.ready()) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return async (opts) => {
    const dataDir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dataDir);
    const s = await openSqliteMetricsStore({ dataDir, ...opts });
    stores.push(s);
    return s;
  };
}
