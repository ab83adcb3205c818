/**
 * The "postgres" vitest project (vitest.config.ts) runs the HTTP suites of alerts, inventory and
 * forecasting a second time with every test collector on PostgreSQL: startTestCollector gives
 * each data folder a database of its own (a restart on the same folder finds its data again),
 * and the project's setup file drops them all when the test file ends.
 */
import { createTestDatabase, type TestDatabase } from "./postgres.ts";

const byDataDir = new Map<string, Promise<TestDatabase>>();

/** Whether this test file runs in the PostgreSQL project. */
export function onPostgresBackend(): boolean {
  return process.env.TEST_STORE_BACKEND === "postgres";
}

/** The URL of the database belonging to `dataDir`, created on first use. */
export async function databaseUrlFor(dataDir: string): Promise<string> {
  let db = byDataDir.get(dataDir);
  if (!db) {
    db = createTestDatabase();
    byDataDir.set(dataDir, db);
  }
  return (await db).url;
}

export async function dropBackendDatabases(): Promise<void> {
  const all = [...byDataDir.values()];
  byDataDir.clear();
  for (const db of all) await (await db).drop();
}
