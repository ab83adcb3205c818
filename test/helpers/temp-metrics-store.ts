import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { openSqliteMetricsStore, type SqliteMetricsStore, type SqliteMetricsStoreOptions } from "../../collector/store/metrics/sqlite/store.ts";

export interface TempMetricsStores {
  /** Opens a store in a temporary folder of its own. */
  open(opts: Omit<SqliteMetricsStoreOptions, "dataDir">): Promise<SqliteMetricsStore>;
  /** Opens a store again on the folder of the store opened last (closed first by the caller). */
  reopen(opts: Omit<SqliteMetricsStoreOptions, "dataDir">): Promise<SqliteMetricsStore>;
  /** The data folder of the store opened last (for reading its files directly). */
  readonly dir: string;
}

/**
 * SQLite metrics stores, each in a temporary folder of its own, closed and removed after each
 * test of the calling file.
 */
export function sqliteMetricsStoresPerTest(prefix: string): TempMetricsStores {
  const dirs: string[] = [];
  const stores: SqliteMetricsStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) if (s.ready()) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return {
    async open(opts) {
      dirs.push(mkdtempSync(join(tmpdir(), prefix)));
      return this.reopen(opts);
    },
    async reopen(opts) {
      const s = await openSqliteMetricsStore({ dataDir: this.dir, ...opts });
      stores.push(s);
      return s;
    },
    get dir() {
      const d = dirs.at(-1);
      if (d === undefined) throw new Error("no store opened yet");
      return d;
    },
  };
}

/** A raw read of everything a series holds, oldest first. */
export const ALL_ASC = { start: 0, end: Number.MAX_SAFE_INTEGER, order: "asc" as const };

/** Gauge writes of `n` points a second apart from `t0` + `from` seconds, each valued its offset. */
export const gaugeWrites = (t0: number) => (id: string, from: number, n: number) => ({
  type: "gauge" as const,
  id,
  points: Array.from({ length: n }, (_, i) => ({ timestamp: t0 + (from + i) * 1000, value: from + i })),
});
