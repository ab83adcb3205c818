import type { Postgres } from "../src/postgres/connect.ts";
import type { StorageHealth } from "../src/sqlite/storage-health.ts";

export interface ReadyState {
  ready: boolean;
  /** Why not, in a few words; absent when ready. */
  reason?: string;
  /** The storage as writes see it: ok, full (reads go on, writes 507), io, unavailable. */
  storage: string;
}

export interface ReadinessOptions {
  /** True once the collector has started (stores open, ingest subscribed). */
  started: () => boolean;
  health: StorageHealth;
  /** With --database-url: the pool a one-row query tests. */
  sql?: Postgres;
  /** How long that query may take (a server that does not answer is as bad as one that refuses). */
  timeoutMs?: number;
  /** Answers within this long reuse the last query's result (a load balancer may ask often). */
  cacheMs?: number;
}

/**
 * Whether this collector can serve (docs/operations.md, "Liveness and readiness"): started,
 * and its storage reachable. With PostgreSQL a `SELECT 1` is asked at most once a second, so a
 * database that went away is seen even when no request failed on it yet. A full disk does not
 * make it unready: reads go on, and with a shared database every collector is in the same place.
 */
export function readinessCheck(o: ReadinessOptions): () => Promise<ReadyState> {
  const timeoutMs = o.timeoutMs ?? 2000;
  const cacheMs = o.cacheMs ?? 1000;
  let last: { at: number; error?: string } | undefined;
  let running: Promise<string | undefined> | undefined;
  const database = async (): Promise<string | undefined> => {
    const sql = o.sql;
    if (!sql) return undefined;
    if (last && Date.now() - last.at < cacheMs) return last.error;
    running ??= (async () => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        await Promise.race([sql`SELECT 1`, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)))]);
        last = { at: Date.now() };
      } catch (e) {
        last = { at: Date.now(), error: (e as Error).message };
      } finally {
        clearTimeout(timer);
        running = undefined;
      }
      return last.error;
    })();
    return running;
  };
  return async () => {
    const failing = o.health.failing;
    const storage = failing ?? "ok";
    if (!o.started()) return { ready: false, reason: "starting", storage };
    if (failing === "unavailable" || failing === "io") return { ready: false, reason: failing === "io" ? "storage I/O errors" : "the database cannot be reached", storage };
    const error = await database();
    if (error !== undefined) return { ready: false, reason: `the database cannot be reached: ${error}`, storage: "unavailable" };
    return { ready: true, storage };
  };
}
