import type { Alert, LifeCycle } from "../../../src/alerts/model.ts";
import type { Logger } from "../../../src/log/logger.ts";

/** Ids per statement when deleting by id lists (well under either engine's parameter limit). */
const CHUNK = 500;

/** When the alert last entered `status`, for the ack/resolved time columns. */
export function lastTime(lifecycle: readonly LifeCycle[], status: string): number | null {
  for (let i = lifecycle.length - 1; i >= 0; i--) if (lifecycle[i]!.status === status) return lifecycle[i]!.stime;
  return null;
}

/** When the alert entered its current state (watch streams follow it). */
export function statusTime(a: Alert): number {
  return a.lifecycle.length > 0 ? a.lifecycle[a.lifecycle.length - 1]!.stime : a.ctime;
}

export function chunks<T>(xs: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += CHUNK) out.push(xs.slice(i, i + CHUNK));
  return out;
}

/** The lookup columns beside an alert's JSON body, in the stores' column order. */
export function alertColumns(a: Alert) {
  return [
    a.trigger?.id ?? null,
    a.ctime,
    a.severity,
    a.status,
    statusTime(a),
    lastTime(a.lifecycle, "ACKNOWLEDGED"),
    lastTime(a.lifecycle, "RESOLVED"),
    JSON.stringify(a),
  ] as const;
}

/** A row of a table that keeps each record as its JSON text. */
export interface BodyRow {
  body: string;
}

/** Parses stored JSON; a row that cannot be read is skipped and logged rather than failing every query. */
export function parseBodies<T>(rows: readonly BodyRow[], what: string, log: Logger): T[] {
  const out: T[] = [];
  for (const r of rows) {
    try {
      out.push(JSON.parse(r.body) as T);
    } catch (e) {
      log.warn(`unreadable ${what} row skipped`, { err: String(e) });
    }
  }
  return out;
}
