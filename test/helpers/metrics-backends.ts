/**
 * The metrics store on either backend behind one shape, for the store suites that run on both
 * (test/collector/store/metrics-backends.test.ts): SQLite in a temporary folder, PostgreSQL in a
 * database of the test file's own (created and dropped by the caller).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SQL } from "bun";
import { PostgresMetricsStore } from "../../collector/store/metrics/postgres/store.ts";
import { openSqliteMetricsStore } from "../../collector/store/metrics/sqlite/store.ts";
import { RollupOffload } from "../../collector/metrics/rollup-offload.ts";
import type { MetricsStore } from "../../collector/store/metrics/types.ts";
import type { RollupTier } from "../../src/metrics/rollup/tiers.ts";

export interface BackendStore {
  store: MetricsStore;
  /** Seals every unsealed point into chunks now. */
  seal(): Promise<void>;
  enforceRetention(): Promise<void>;
  /** Rolls every sealed chunk up into the tiers now (with rollupTiers). */
  rollUp(): Promise<void>;
  chunks(): Promise<number>;
  close(): Promise<void>;
}

export interface BackendOptions {
  now?: () => number;
  chunkPoints?: number;
  rollupTiers?: readonly RollupTier[];
  defaultRetentionDays?: number;
}

/** sqlite-worker: SQLite with the roller's steps in its worker thread (collector/metrics/rollup-offload.ts), as the collector runs it. */
export type Backend = "sqlite" | "sqlite-worker" | "postgres";

export async function openBackendStore(backend: Backend, sql: SQL | undefined, o: BackendOptions = {}): Promise<BackendStore> {
  if (backend === "postgres") {
    const s = new PostgresMetricsStore({ sql: sql!, maintenanceIntervalMs: 3_600_000, ...o });
    await s.open();
    return {
      store: s,
      seal: async () => void (await s.seal(true)),
      enforceRetention: async () => void (await s.enforceRetention()),
      rollUp: () => s.rollUp(),
      chunks: async () => (await s.stats()).chunks,
      close: () => s.close(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "outpost-store-"));
  const offload = backend === "sqlite-worker" ? new RollupOffload() : undefined;
  const s = await openSqliteMetricsStore({ dataDir: dir, synchronous: "NORMAL", maintenanceIntervalMs: 3_600_000, rollupCompute: offload, ...o });
  return {
    store: s,
    seal: async () => s.flushDue(true),
    enforceRetention: async () => s.enforceRetention(),
    rollUp: async () => (offload ? s.catchUpRollups() : s.rollUp()),
    chunks: async () => s.stats().chunks,
    async close() {
      if (s.ready()) await s.close();
      await offload?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
