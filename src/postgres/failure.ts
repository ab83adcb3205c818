/** The same words as src/sqlite/storage-failure.ts uses (kept literal: no import cycle). */
export type PostgresFailureKind = "full" | "io" | "unavailable";

/**
 * What a failed PostgreSQL call (Bun.sql) says about the storage, in the terms SQLite failures
 * use (storage-failure.ts): "full" when the server's disk is full, "io" for its I/O errors,
 * "unavailable" when the server cannot be reached or is not taking work (down, restarting, out
 * of connections, a read-only standby after a failover). All pass by themselves, so the write
 * is refused for now (HTTP 503/507, no MQTT ack), never answered as a bug (500).
 */
export function postgresFailure(e: unknown): PostgresFailureKind | undefined {
  if (e === null || typeof e !== "object") return undefined;
  const { code, errno } = e as { code?: unknown; errno?: unknown };
  if (typeof code !== "string" || !code.startsWith("ERR_POSTGRES_")) return undefined;
  if (code === "ERR_POSTGRES_SERVER_ERROR") return typeof errno === "string" ? sqlStateFailure(errno) : undefined;
  // The client's own errors: the connection failed, closed or timed out. Errors about the
  // query itself (a bad parameter, a syntax the client refuses) are bugs, not storage failures.
  return /CONNECTION|TIMEOUT|TLS|AUTHENTICATION|SOCKET/.test(code) ? "unavailable" : undefined;
}

/** SQLSTATE codes (PostgreSQL's appendix A) that are the storage's condition, not the query's. */
function sqlStateFailure(state: string): PostgresFailureKind | undefined {
  if (state === "53100") return "full"; // disk_full
  if (state.startsWith("58") || state === "XX001" || state === "XX002") return "io"; // system errors, data/index corrupted
  if (state.startsWith("08")) return "unavailable"; // connection exception
  if (state === "53200" || state === "53300" || state === "53400") return "unavailable"; // out of memory, too many connections, limits
  if (state === "57P01" || state === "57P02" || state === "57P03" || state === "57P05") return "unavailable"; // shutdown, starting up
  if (state === "25006") return "unavailable"; // read-only transaction: a standby, or the primary demoted
  return undefined;
}

/**
 * Text PostgreSQL refuses to store although the request was valid JSON: a NUL character
 * (U+0000), which SQLite keeps but a PostgreSQL text value cannot hold. Bad input (a 400 naming
 * the reason), not a bug; undefined for any other error.
 */
export function postgresRejectedText(e: unknown): string | undefined {
  if (e === null || typeof e !== "object") return undefined;
  const { code, errno } = e as { code?: unknown; errno?: unknown };
  if (code !== "ERR_POSTGRES_SERVER_ERROR" || (errno !== "22021" && errno !== "22P05")) return undefined;
  return "Text containing a NUL character (\\u0000) cannot be stored: remove it";
}
