import type { Database } from "bun:sqlite";
import type { Backlog } from "./backlog.ts";
import type { BufferEvents } from "./buffer-options.ts";
import type { HistoryWindow } from "./history-window.ts";
import { removeSpans, type Span } from "./span-removal.ts";

/** Acknowledged spans deleted per transaction: a delete must fit in the log's room on a full disk. */
const REMOVAL_PIECE = 64;

export interface RemovalTarget {
  db: Database;
  backlog: Backlog;
  history: HistoryWindow;
  events: BufferEvents;
}

/**
 * Lets go of acknowledged spans, a few per transaction: taken into the local window while it
 * is on and storage is well (keepAcked: their ids recorded, rows left in place), deleted
 * otherwise or when that fails. On a full
 * disk a delete that fails is retried once the storage has made what room it can
 * (agent/storage.ts), then in halves, down to one row: the log's own room holds that. Returns
 * the spans still to do, in order (empty when all were done), for the next try: deleting again
 * what was deleted is harmless.
 */
export function commitRemovals(t: RemovalTarget, removals: Span[]): Span[] {
  const piece = (spans: Span[]) => {
    if (keepsAcked(t) && moveToHistory(t, spans)) return true;
    const r = removeSpans(t.db, t.backlog.removeSpan, spans, (e) => t.events.writeFailed?.(e) ?? false, () => t.events.space?.committed());
    t.backlog.account(-r.points, -r.bytes, -r.chunks);
    return r.complete;
  };
  for (let i = 0; i < removals.length; i += REMOVAL_PIECE) {
    if (!piece(removals.slice(i, i + REMOVAL_PIECE))) return removals.slice(i);
  }
  return [];
}

function keepsAcked(t: RemovalTarget): boolean {
  return t.history.enabled && (t.events.keepAcked?.() ?? true);
}

/** Moves acknowledged spans into the local window; false when that failed (they are then deleted). */
function moveToHistory(t: RemovalTarget, spans: Span[]): boolean {
  t.events.space?.beforeWrite();
  try {
    const moved = t.history.move(spans);
    t.backlog.account(-moved.points, -moved.bytes, -moved.chunks);
  } catch (e) {
    t.history.reload();
    t.backlog.reload();
    t.events.writeFailed?.(e);
    return false;
  }
  t.events.space?.committed();
  return true;
}
