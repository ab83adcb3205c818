import type { Database } from "bun:sqlite";
import { CHUNK_FORMAT } from "../../src/protocol/series-chunk.ts";
import { storageFailure } from "../../src/sqlite/storage-failure.ts";
import { type Backlog, ROW_OVERHEAD } from "./backlog.ts";
import type { BufferEvents } from "./buffer-options.ts";
import type { HistoryWindow } from "./history-window.ts";

/** A chunk to buffer; `format` is CHUNK_FORMAT.cbor unless given. */
export interface NewChunk {
  body: Uint8Array;
  points: number;
  format?: number;
  /**
   * The body is a buffer of its own the writer gives up once committed: kept for the send path's
   * first read (fresh-rows.ts), which sets `kept`; the writer frees only bodies not kept.
   */
  keep?: boolean;
  kept?: boolean;
}

/** A writer's chunks, answered once all of them are committed. */
export interface PendingAppend {
  chunks: NewChunk[];
  resolve: () => void;
  reject: (e: Error) => void;
}

export interface AppendTarget {
  db: Database;
  backlog: Backlog;
  history: HistoryWindow;
  /** The buffer's size limit (--buffer-max-bytes), read at each commit. */
  maxBytes: () => number;
  events: BufferEvents;
  now: () => number;
}

/**
 * Commits the appends, in transactions of at most the space's step of chunk bytes (at least
 * one chunk), so that growth not yet copied into the file stays within what the space reserve
 * can pay for. Each transaction then drops what passes the size limit: the local window's
 * oldest rows first, then the backlog's. A writer is answered once all its chunks are
 * committed; when a transaction fails, the writers not yet answered are refused (a large write
 * may then be kept in part: sending it again stores each point once, as the collector keeps one
 * per series and time). A full disk while the window holds rows makes room at the window's
 * expense, and the transaction is tried once more: writes never wait for the history.
 */
export function commitAppends(t: AppendTarget, appends: PendingAppend[]): void {
  const { db, backlog, history, events } = t;
  const step = events.space?.stepBytes() ?? Number.POSITIVE_INFINITY;
  const over = () => backlog.depth.bytes + history.depth.bytes > t.maxBytes();
  let next = 0;
  let chunk = 0;
  let yielded = false;
  while (next < appends.length) {
    const first = next;
    const firstChunk = chunk;
    let drops: [number, number];
    let added = 0;
    events.space?.beforeWrite();
    try {
      drops = db.transaction(() => {
        const enq = t.now();
        let taken = 0;
        while (next < appends.length && (added === 0 || taken < step)) {
          const c = appends[next]!.chunks[chunk]!;
          taken += backlog.insert(enq, c.format ?? CHUNK_FORMAT.cbor, c.points, c.body, c.keep ? c : undefined);
          added++;
          if (++chunk === appends[next]!.chunks.length) {
            next++;
            chunk = 0;
          }
        }
        // The local window gives way first: the backlog is what the collector has not got yet.
        history.dropOldest(over);
        return backlog.dropOldestWhile(over);
      })();
    } catch (e) {
      // Nothing of this transaction was committed: restore the totals.
      backlog.reload();
      history.reload();
      events.writeFailed?.(e);
      if (!yielded && storageFailure(e) === "full" && yieldHistory(t, pendingBytes(appends, first, firstChunk))) {
        yielded = true;
        next = first;
        chunk = firstChunk;
        continue;
      }
      // Refuse the writers not yet answered (507/503).
      for (let i = first; i < appends.length; i++) appends[i]!.reject(e as Error);
      return;
    }
    backlog.fresh.committed();
    for (let i = first; i < next; i++) appends[i]!.resolve();
    if (drops[0] > 0) events.dropped?.("size", drops[0], drops[1]);
    if (added > 0) events.appended?.();
    events.space?.committed();
  }
}

/** Makes room for writes the disk refused at the window's expense (history-window.ts, makeRoom). */
function yieldHistory(t: AppendTarget, bytes: number): boolean {
  if (!t.history.makeRoom(bytes)) return false;
  t.events.space?.committed();
  return true;
}

/** Twice the bytes of the chunks not yet committed, from appends[first], chunk `chunk`. */
function pendingBytes(appends: PendingAppend[], first: number, chunk: number): number {
  let n = 0;
  for (let i = first; i < appends.length; i++) {
    const cs = appends[i]!.chunks;
    for (let j = i === first ? chunk : 0; j < cs.length; j++) n += cs[j]!.body.byteLength + ROW_OVERHEAD;
  }
  return 2 * n;
}
