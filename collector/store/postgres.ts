import type { Logger } from "../../src/log/logger.ts";
import { openPostgres, type Postgres, redactedUrl } from "../../src/postgres/connect.ts";
import { migratePostgres, type PgSchema } from "../../src/postgres/migrations.ts";
import { OptionError } from "../../src/config/option-error.ts";
import { ALERTS_PG } from "./alerts/postgres-schema.ts";
import { FLEET_PG } from "./fleet/postgres-schema.ts";
import { FORECAST_PG } from "./forecast/postgres-schema.ts";
import { INVENTORY_PG } from "./inventory/postgres-schema.ts";
import { METRICS_PG } from "./metrics/postgres/schema.ts";
import { RELEASES_PG } from "./releases/postgres-schema.ts";

/** The stores kept in PostgreSQL with --database-url (docs/scale-out.md). */
export const POSTGRES_SCHEMAS: readonly PgSchema[] = [ALERTS_PG, INVENTORY_PG, FORECAST_PG, METRICS_PG, FLEET_PG, RELEASES_PG];

export interface PostgresStorage {
  sql: Postgres;
  /** The URL without its password, for logs. */
  where: string;
  close(): Promise<void>;
}

/** The cause of a failed start, without the URL's password (Bun's messages do not carry it; the URL is redacted). */
class DatabaseStartError extends OptionError {}

/**
 * Opens the collector's pool and brings every store's tables to the current version. A database
 * that cannot be reached stops the start with one line: the collector has no storage without it.
 */
export async function openPostgresStorage(url: string, log: Logger): Promise<PostgresStorage> {
  const where = redactedUrl(url);
  const sql = openPostgres(url);
  try {
    for (const schema of POSTGRES_SCHEMAS) {
      await migratePostgres(sql, schema, (m) => log.info(`upgraded the ${schema.name} tables to schema ${m.version}`, { step: m.description }));
    }
  } catch (e) {
    await sql.close({ timeout: 1 }).catch(() => undefined);
    if (e instanceof OptionError) throw e;
    throw new DatabaseStartError(`--database-url: cannot use the database at ${where}: ${(e as Error).message}`);
  }
  return { sql, where, close: () => sql.close({ timeout: 5 }) };
}
