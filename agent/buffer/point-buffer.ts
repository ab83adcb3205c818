import type { Database } from "bun:sqlite";
import { basename } from "node:path";
import type { Decoder, Encoder } from "cbor-x";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { encodeChunk, hasStaleMarkers } from "../../src/protocol/data-encode.ts";
import { encodeDefinitionsChunk, type SeriesDefinition } from "../../src/protocol/definitions-chunk.ts";
import { CHUNK_FORMAT, MARKERS_FLAG } from "../../src/protocol/series-chunk.ts";
import { splitIntoChunks } from "./chunking.ts";
import { type CompactionOptions, type CompactionResult, compactRows, type IdRange } from "./compaction.ts";
import { migrate } from "../../src/sqlite/migrations.ts";
import { bufferSchema, getMeta, setMeta } from "./schema.ts";
import { removeSpans, type Span } from "./span-removal.ts";
import { HistoryWindow } from "./history-window.ts";
import { storageFailure } from "../../src/sqlite/storage-failure.ts";

export interface BufferLimits {
  /** Sum of chunk sizes above which the oldest chunks are dropped. */
  maxBytes: number;
  /** Chunks buffered longer than this are dropped. */
  maxAgeMs: number;
  /** Points per chunk at most; a chunk is never split across batches. */
  chunkPoints: number;
  /** How long acknowledged rows are kept for local reads (history-window.ts); 0 or absent: deleted at once. */
  historyMs?: number;
}

export interface BufferIdentity {
  tenant: string;
  feed: string;
}

export type DropReason = "size" | "age" | "rejected";

export interface BufferEvents {
  /** New chunks were committed. */
  appended?: () => void;
  dropped?: (reason: DropReason, points: number, chunks: number) => void;
  /**
   * A commit failed (a full disk...). Returns true when something was done that may let a retry
   * succeed at once (the agent released its space reserve): removals are then retried at once.
   */
  writeFailed?: (e: unknown) => boolean;
  /** How the buffer's writes keep within the disk room the agent has (agent/storage.ts); none: no limit. */
  space?: BufferSpace;
  /** False while storage is in trouble: acknowledged rows are then deleted, not kept in the window. */
  keepAcked?: () => boolean;
}

/** See AgentStorage: how much one transaction may add, and what follows each commit. */
export interface BufferSpace {
  /** Chunk bytes one append transaction adds at most before it commits and the next begins. */
  stepBytes(): number;
  /** Called before every transaction that adds rows. */
  beforeWrite(): void;
  /** Called after every commit. */
  committed(): void;
}

export interface ChunkSpan {
  /** First and last chunk id, inclusive: ids are never reused, so the span names exactly these chunks. */
  lo: number;
  hi: number;
  points: number;
  bodies: Uint8Array[];
  /** Format of each body (CHUNK_FORMAT: CBOR chunk, or series chunk of a compacted row; MARKERS_FLAG added when it holds staleness markers). */
  formats: number[];
}

/** A chunk to buffer; `format` is CHUNK_FORMAT.cbor unless given. */
export interface NewChunk {
  body: Uint8Array;
  points: number;
  format?: number;
}

interface PendingAppend {
  chunks: NewChunk[];
  resolve: () => void;
  reject: (e: Error) => void;
}

/** Rows count a little more than their body: the ids, times and index entries around it. */
const ROW_OVERHEAD = 40;
/** How long removals that failed to commit wait before they are tried again. */
const RETRY_MS = 1000;
/** Acknowledged spans deleted per transaction: a delete must fit in the log's room on a full disk. */
const REMOVAL_PIECE = 64;

export class BufferIdentityError extends Error {}

/**
 * The SQLite queue every point enters before it is sent. Appends and removals are grouped
 * into one transaction per `groupMs`, so many small local writes cost few commits, and an
 * append resolves only after its commit (synchronous=FULL makes that survive power loss).
 */
export class PointBuffer {
  /** Increments on every open; batch sequence numbers restart with it. */
  readonly session: number;
  private points = 0;
  private bytes = 0;
  private chunks = 0;
  private pending: PendingAppend[] = [];
  private removals: Span[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly q;
  /** Acknowledged rows kept for local reads; counted with the backlog against maxBytes, dropped first. */
  readonly history: HistoryWindow;

  constructor(
    private readonly db: Database,
    identity: BufferIdentity,
    private readonly limits: BufferLimits,
    private readonly encoder: Encoder,
    private readonly events: BufferEvents = {},
    private readonly now: () => number = Date.now,
    private readonly groupMs = 5,
  ) {
    migrate(db, bufferSchema(basename(db.filename) || "buffer"));
    this.session = db.transaction(() => {
      const owner = getMeta(db, "identity");
      const mine = JSON.stringify([identity.tenant, identity.feed]);
      if (owner !== undefined && owner !== mine) {
        const [t, f] = JSON.parse(owner) as [string, string];
        throw new BufferIdentityError(
          `the buffer belongs to tenant "${t}", feed "${f}"; its points must not be sent as tenant "${identity.tenant}", feed "${identity.feed}". Use another --data-dir.`,
        );
      }
      setMeta(db, "identity", mine);
      const s = Number(getMeta(db, "session") ?? "0") + 1;
      setMeta(db, "session", String(s));
      return s;
    })();
    const totals = db.query<{ c: number; n: number | null; b: number | null }, []>("SELECT count(*) AS c, sum(n) AS n, sum(bytes) AS b FROM chunks").get()!;
    this.chunks = totals.c;
    this.points = totals.n ?? 0;
    this.bytes = totals.b ?? 0;
    this.history = new HistoryWindow(db, limits.historyMs ?? 0);
    this.q = {
      insert: db.query<null, [number, number, number, number, Uint8Array]>("INSERT INTO chunks (enq, fmt, n, bytes, body) VALUES (?, ?, ?, ?, ?)"),
      removeSpan: db.query<{ n: number; bytes: number }, [number, number]>("DELETE FROM chunks WHERE id BETWEEN ? AND ? RETURNING n, bytes"),
      oldest: db.query<{ id: number; enq: number; n: number; bytes: number }, [number]>("SELECT id, enq, n, bytes FROM chunks ORDER BY id LIMIT ?"),
      removeOne: db.query<null, [number]>("DELETE FROM chunks WHERE id = ?"),
      heads: db.query<{ id: number; n: number }, [number, number, number]>("SELECT id, n FROM chunks WHERE id > ? AND id <= ? ORDER BY id LIMIT ?"),
      bodies: db.query<{ body: Uint8Array; n: number; fmt: number }, [number, number]>("SELECT body, n, fmt FROM chunks WHERE id BETWEEN ? AND ? ORDER BY id"),
      firstAfter: db.query<{ id: number; enq: number }, [number]>("SELECT id, enq FROM chunks WHERE id > ? ORDER BY id LIMIT 1"),
      lastBefore: db.query<{ id: number | null }, [number, number]>("SELECT max(id) AS id FROM chunks WHERE id > ? AND enq < ?"),
      maxId: db.query<{ id: number | null }, []>("SELECT max(id) AS id FROM chunks"),
      oldestEnq: db.query<{ enq: number }, []>("SELECT enq FROM chunks ORDER BY id LIMIT 1"),
    };
  }

  /** Buffers the writes; resolves once they are committed to disk. */
  append(writes: MetricWrite[], definitions?: readonly SeriesDefinition[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error("buffer is closed"));
    const chunks: NewChunk[] = splitIntoChunks(writes, this.limits.chunkPoints).map((c) => ({
      body: encodeChunk(this.encoder, c.writes),
      points: c.points,
      // Chunks with staleness markers are sent in version 3 batches (docs/protocol.md).
      format: hasStaleMarkers(c.writes) ? CHUNK_FORMAT.cbor | MARKERS_FLAG : CHUNK_FORMAT.cbor,
    }));
    // Definitions go just before the points, in the same transaction: sent before or with them.
    if (definitions && definitions.length > 0) chunks.unshift({ body: encodeDefinitionsChunk(this.encoder, definitions), points: 0, format: CHUNK_FORMAT.definitions });
    return this.appendChunks(chunks);
  }

  /**
   * Buffers chunks already encoded, each counting `points` items (the events buffer keeps
   * fired alerts this way); resolves once they are committed to disk.
   */
  appendChunks(chunks: NewChunk[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error("buffer is closed"));
    if (chunks.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.pending.push({ chunks, resolve, reject });
      this.schedule();
    });
  }

  /** Forgets the chunks of an acknowledged batch (committed with the next group). */
  remove(lo: number, hi: number): void {
    if (this.closed) return;
    this.removals.push([lo, hi]);
    this.schedule();
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => this.flush(), this.groupMs);
  }

  /**
   * Commits what is pending now; called by the timer, and by close(). Removals of acknowledged
   * chunks commit first, in their own transaction, so that appends refused by a full disk never
   * hold them back: the buffer can always let go of what the collector has stored.
   */
  flush(): void {
    this.timer = undefined;
    const appends = this.pending;
    const removals = this.removals;
    this.pending = [];
    this.removals = [];
    if (removals.length > 0) this.commitRemovals(removals);
    if (appends.length > 0) this.commitAppends(appends);
  }

  /**
   * Deletes acknowledged spans, a few per transaction. On a full disk a transaction that fails
   * is retried once the storage has made what room it can (agent/storage.ts), then in halves,
   * down to one row: the log's own room holds that. What still fails waits for the next try.
   */
  private commitRemovals(removals: Span[]): void {
    const piece = (spans: Span[]) => {
      if (this.keepsAcked() && this.moveToHistory(spans)) return true;
      const r = removeSpans(this.db, this.q.removeSpan, spans, (e) => this.events.writeFailed?.(e) ?? false, () => this.events.space?.committed());
      this.account(-r.points, -r.bytes, -r.chunks);
      return r.complete;
    };
    for (let i = 0; i < removals.length; i += REMOVAL_PIECE) {
      if (piece(removals.slice(i, i + REMOVAL_PIECE))) continue;
      // Deleting again what was deleted is harmless: keep the whole rest, in order, for the next try.
      this.removals.unshift(...removals.slice(i));
      this.retryLater();
      return;
    }
  }

  /**
   * Commits the appends, in transactions of at most the space's step of chunk bytes (at least
   * one chunk), so that growth not yet copied into the file stays within what the space reserve
   * can pay for. A writer is answered once all its chunks are committed; when a transaction
   * fails, the writers not yet answered are refused (a large write may then be kept in part:
   * sending it again stores each point once, as the collector keeps one per series and time).
   */
  private commitAppends(appends: PendingAppend[]): void {
    const step = this.events.space?.stepBytes() ?? Number.POSITIVE_INFINITY;
    let next = 0;
    let chunk = 0;
    let yielded = false;
    while (next < appends.length) {
      const first = next;
      const firstChunk = chunk;
      let drops: [number, number];
      let added = 0;
      this.events.space?.beforeWrite();
      try {
        drops = this.db.transaction(() => {
          const enq = this.now();
          let taken = 0;
          while (next < appends.length && (added === 0 || taken < step)) {
            const c = appends[next]!.chunks[chunk]!;
            const bytes = c.body.byteLength + ROW_OVERHEAD;
            this.q.insert.run(enq, c.format ?? CHUNK_FORMAT.cbor, c.points, bytes, c.body);
            this.account(c.points, bytes, 1);
            taken += bytes;
            added++;
            if (++chunk === appends[next]!.chunks.length) {
              next++;
              chunk = 0;
            }
          }
          // The local window gives way first: the backlog is what the collector has not got yet.
          this.history.dropOldest(() => this.bytes + this.history.depth.bytes > this.limits.maxBytes);
          return this.dropOldestWhile(() => this.bytes + this.history.depth.bytes > this.limits.maxBytes);
        })();
      } catch (e) {
        // Nothing of this transaction was committed: restore the totals.
        this.reloadTotals();
        this.history.reload();
        this.events.writeFailed?.(e);
        // A full disk while the window holds rows: they go, and the transaction is tried once more.
        if (!yielded && storageFailure(e) === "full" && this.yieldHistory(this.pendingBytes(appends, first, firstChunk))) {
          yielded = true;
          next = first;
          chunk = firstChunk;
          continue;
        }
        // Refuse the writers not yet answered (507/503).
        for (let i = first; i < appends.length; i++) appends[i]!.reject(e as Error);
        return;
      }
      for (let i = first; i < next; i++) appends[i]!.resolve();
      if (drops[0] > 0) this.events.dropped?.("size", drops[0], drops[1]);
      if (added > 0) this.events.appended?.();
      this.events.space?.committed();
    }
  }

  private keepsAcked(): boolean {
    return this.history.enabled && (this.events.keepAcked?.() ?? true);
  }

  /** Moves acknowledged spans into the local window; false when that failed (they are then deleted). */
  private moveToHistory(spans: Span[]): boolean {
    this.events.space?.beforeWrite();
    try {
      const moved = this.history.move(spans);
      this.account(-moved.points, -moved.bytes, -moved.chunks);
    } catch (e) {
      this.history.reload();
      this.reloadTotals();
      this.events.writeFailed?.(e);
      return false;
    }
    this.events.space?.committed();
    return true;
  }

  /** Makes room for writes the disk refused at the window's expense (history-window.ts, makeRoom). */
  private yieldHistory(bytes: number): boolean {
    if (!this.history.makeRoom(bytes)) return false;
    this.events.space?.committed();
    return true;
  }

  private retryLater(): void {
    if (this.retry || this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.schedule();
    }, RETRY_MS);
  }

  /** Bytes of the chunks not yet committed, from appends[first], chunk `chunk`. */
  private pendingBytes(appends: PendingAppend[], first: number, chunk: number): number {
    let n = 0;
    for (let i = first; i < appends.length; i++) {
      const cs = appends[i]!.chunks;
      for (let j = i === first ? chunk : 0; j < cs.length; j++) n += cs[j]!.body.byteLength + ROW_OVERHEAD;
    }
    return 2 * n;
  }

  /** Removals waiting to be committed (kept while the disk refuses them). */
  get pendingRemovals(): number {
    return this.removals.length;
  }

  private account(points: number, bytes: number, chunks: number): void {
    this.points += points;
    this.bytes += bytes;
    this.chunks += chunks;
  }

  private reloadTotals(): void {
    const t = this.db.query<{ c: number; n: number | null; b: number | null }, []>("SELECT count(*) AS c, sum(n) AS n, sum(bytes) AS b FROM chunks").get()!;
    this.chunks = t.c;
    this.points = t.n ?? 0;
    this.bytes = t.b ?? 0;
  }

  /** Deletes oldest chunks while `more()` holds (inside a transaction); returns [points, chunks] dropped. */
  private dropOldestWhile(more: () => boolean, stopAt?: (enq: number) => boolean): [number, number] {
    let points = 0;
    let chunks = 0;
    while (more()) {
      const rows = this.q.oldest.all(256);
      if (rows.length === 0) break;
      for (const r of rows) {
        if (!more() || stopAt?.(r.enq)) return [points, chunks];
        this.q.removeOne.run(r.id);
        this.account(-r.n, -r.bytes, -1);
        points += r.n;
        chunks++;
      }
    }
    return [points, chunks];
  }

  /** Drops chunks buffered longer than the age limit (oldest first, stopping at the first young one). */
  expire(): void {
    const cutoff = this.now() - this.limits.maxAgeMs;
    let young = false;
    let dropped: [number, number];
    try {
      dropped = this.db.transaction(() => this.dropOldestWhile(() => !young, (enq) => (young = enq >= cutoff)))();
    } catch (e) {
      // Nothing was dropped; the next tick tries again.
      this.reloadTotals();
      this.events.writeFailed?.(e);
      return;
    }
    if (dropped[0] > 0) this.events.dropped?.("age", dropped[0], dropped[1]);
    if (this.history.enabled) {
      try {
        this.history.expire(this.now());
      } catch (e) {
        this.events.writeFailed?.(e);
      }
    }
    this.events.space?.committed();
  }

  /**
   * The chunks after `afterId` and up to `toId`, as many as fit in `maxPoints` (at least one),
   * or undefined when there are none.
   */
  read(afterId: number, toId: number, maxPoints: number): ChunkSpan | undefined {
    const heads = this.q.heads.all(afterId, toId, maxPoints);
    if (heads.length === 0) return undefined;
    let points = heads[0]!.n;
    let hi = heads[0]!.id;
    for (let i = 1; i < heads.length && points + heads[i]!.n <= maxPoints; i++) {
      points += heads[i]!.n;
      hi = heads[i]!.id;
    }
    return this.span(heads[0]!.id, hi);
  }

  /** The chunks still buffered in [lo, hi] (some may have been dropped), or undefined when none are left. */
  span(lo: number, hi: number): ChunkSpan | undefined {
    const rows = this.q.bodies.all(lo, hi);
    if (rows.length === 0) return undefined;
    let points = 0;
    for (const r of rows) points += r.n;
    return { lo, hi, points, bodies: rows.map((r) => r.body), formats: rows.map((r) => r.fmt) };
  }

  /**
   * Merges rows that waited longer than the compaction age and are not in `busy` (batches in
   * flight) into compressed rows (compaction.ts), in one transaction. Acknowledged spans whose
   * removal is not committed yet count as busy too. Returns undefined when it failed (nothing
   * changed; a full disk: the next call tries again).
   */
  compact(dec: Decoder, options: CompactionOptions, busy: readonly IdRange[] = []): CompactionResult | undefined {
    if (this.closed) return undefined;
    const ranges = [...busy, ...this.removals.map(([lo, hi]) => ({ lo, hi }))];
    this.events.space?.beforeWrite();
    try {
      const r = this.db.transaction(() => compactRows(this.db, this.encoder, dec, this.now(), options, ranges, ROW_OVERHEAD))();
      this.account(0, r.bytesDelta, r.added - r.removed);
      // The window is kept compressed the same way (nothing of it is in flight).
      if (this.history.depth.rows > 0) {
        const h = this.db.transaction(() => compactRows(this.db, this.encoder, dec, this.now(), options, [], ROW_OVERHEAD, "kept"))();
        this.history.account(0, h.bytesDelta, h.added - h.removed);
      }
      this.events.space?.committed();
      return r;
    } catch {
      this.reloadTotals();
      this.history.reload();
      return undefined;
    }
  }

  /** The database, for local reads of the buffered and kept rows (agent/history/). */
  get database(): Database {
    return this.db;
  }

  firstAfter(id: number): { id: number; enq: number } | undefined {
    return this.q.firstAfter.get(id) ?? undefined;
  }

  /** The last chunk after `afterId` buffered before `time`, if any. */
  lastBufferedBefore(afterId: number, time: number): number | undefined {
    return this.q.lastBefore.get(afterId, time)?.id ?? undefined;
  }

  maxId(): number {
    return this.q.maxId.get()?.id ?? 0;
  }

  /** Buffering time of the oldest chunk, or undefined when the buffer is empty. */
  oldestBufferedAt(): number | undefined {
    return this.q.oldestEnq.get()?.enq;
  }

  get depth(): { points: number; bytes: number; chunks: number } {
    return { points: this.points, bytes: this.bytes, chunks: this.chunks };
  }

  /** Bytes the database file occupies (it keeps its high-water mark; freed pages are reused). */
  fileBytes(): number {
    const r = this.db.query<{ s: number }, []>("SELECT page_count * page_size AS s FROM pragma_page_count(), pragma_page_size()").get();
    return r?.s ?? 0;
  }

  /** Commits what is pending and closes the database. */
  close(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    if (this.retry) clearTimeout(this.retry);
    this.flush();
    this.closed = true;
    this.db.close();
  }
}

