import { postgresFailure } from "../postgres/failure.ts";

/**
 * What a failed SQLite call says about the storage under it. "full": the disk (or the
 * database's page limit) has no room for the write; "io": the operating system failed a read
 * or write; "unavailable" (PostgreSQL only, src/postgres/failure.ts): the database server
 * cannot be reached. All pass by themselves (space is freed, a disk or server comes back),
 * unlike a constraint or a bug, so callers refuse the write for now (HTTP 507/503, no MQTT
 * ack) and keep serving what they can.
 */
export type StorageFailureKind = "full" | "io" | "unavailable";

export function storageFailure(e: unknown): StorageFailureKind | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  if (code.startsWith("ERR_POSTGRES_")) return postgresFailure(e);
  if (code === "SQLITE_FULL") return "full";
  if (code.startsWith("SQLITE_IOERR")) return "io";
  return undefined;
}

/** The errorMsg a refused write carries. */
export function storageFailureMessage(kind: StorageFailureKind): string {
  if (kind === "full") return "Storage is full: the write was not stored; retry once space is freed (stored data can still be read)";
  if (kind === "io") return "Storage failed to write (I/O error): the write was not stored; retry later (stored data can still be read)";
  return "The database cannot be reached: the request was not served; retry later";
}
