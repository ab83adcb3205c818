import type { Database } from "bun:sqlite";
import type { Decoder, Encoder } from "cbor-x";
import type { MetricWrite } from "../../src/metrics/model.ts";
import { encodeChunk, hasStaleMarkers, releaseEncoding } from "../../src/protocol/data-encode.ts";
import { isOwnEncoding } from "../../src/protocol/sized-encoding.ts";
import { encodeDefinitionsChunk, type SeriesDefinition } from "../../src/protocol/definitions-chunk.ts";
import { CHUNK_FORMAT, MARKERS_FLAG } from "../../src/protocol/series-chunk.ts";
import { commitRemovals } from "./ack-removal.ts";
import { AckedRanges, MAX_ID } from "./acked-ranges.ts";
import { commitAppends, type NewChunk, type PendingAppend } from "./append-commit.ts";
import { Backlog, type ChunkSpan, ROW_OVERHEAD } from "./backlog.ts";
import { type BufferIdentity, openBufferSession } from "./buffer-identity.ts";
import type { BufferEvents, BufferLimits } from "./buffer-options.ts";
import { splitIntoChunks } from "./chunking.ts";
import type { FreshRows } from "./fresh-rows.ts";
import { type CompactionOptions, type CompactionResult, compactRows, type IdRange } from "./compaction.ts";
import { HistoryWindow } from "./history-window.ts";
import type { Span } from "./span-removal.ts";

export type { ChunkSpan } from "./backlog.ts";
export { BufferIdentityError, type BufferIdentity } from "./buffer-identity.ts";
export type { BufferEvents, BufferLimits, BufferSpace, DropReason } from "./buffer-options.ts";
export type { NewChunk } from "./append-commit.ts";

/** How long removals that failed to commit wait before they are tried again. */
const RETRY_MS = 1000;

/**
 * The SQLite queue every point enters before it is sent. Appends and removals are grouped
 * into one transaction per `groupMs`, so many small local writes cost few commits, and an
 * append resolves only after its commit (synchronous=FULL makes that survive power loss).
 * Both live in the table `chunks`, told apart by the acknowledged id ranges (acked-ranges.ts):
 * the backlog is backlog.ts, the local window history-window.ts; committing appends and
 * acknowledgements is append-commit.ts and ack-removal.ts.
 */
export class PointBuffer {
  /** Increments on every open; batch sequence numbers restart with it. */
  readonly session: number;
  private pending: PendingAppend[] = [];
  private removals: Span[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private readonly backlog: Backlog;
  /** Which rows are acknowledged: the window's, the others the backlog's (acked-ranges.ts). */
  private readonly acked: AckedRanges;
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
    // The ranges are opened in the transaction that counts the session: a crash in between would
    // make them look left behind by an older agent (acked-ranges.ts).
    let acked: AckedRanges | undefined;
    this.session = openBufferSession(db, identity, (session) => {
      acked = new AckedRanges(db);
      acked.open(session);
    });
    this.acked = acked!;
    this.backlog = new Backlog(db, this.acked);
    this.history = new HistoryWindow(db, limits.historyMs ?? 0, this.acked);
  }

  /** New size and age limits (SIGHUP, remote configuration): applied from the next append and the next tick. */
  setLimits(l: Pick<BufferLimits, "maxBytes" | "maxAgeMs">): void {
    this.limits.maxBytes = l.maxBytes;
    this.limits.maxAgeMs = l.maxAgeMs;
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
    // A large chunk in a buffer of its own may be sent from memory (fresh-rows.ts).
    for (const c of chunks) c.keep = isOwnEncoding(c.body);
    // Definitions go just before the points, in the same transaction: sent before or with them.
    if (definitions && definitions.length > 0) chunks.unshift({ body: encodeDefinitionsChunk(this.encoder, definitions), points: 0, format: CHUNK_FORMAT.definitions });
    // Once committed (or refused), large encodings are freed now, not at the next full collection.
    const release = () => {
      for (const c of chunks) if (!c.kept) releaseEncoding(c.body);
    };
    const done = this.appendChunks(chunks);
    done.then(release, release);
    return done;
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
    const target = { db: this.db, backlog: this.backlog, history: this.history, events: this.events };
    if (removals.length > 0) {
      const rest = commitRemovals(target, removals);
      if (rest.length > 0) {
        // Kept, in order, before any acknowledged since, for the next try.
        this.removals.unshift(...rest);
        this.retryLater();
      }
    }
    if (appends.length > 0) commitAppends({ ...target, maxBytes: () => this.limits.maxBytes, now: this.now }, appends);
  }

  private retryLater(): void {
    if (this.retry || this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.schedule();
    }, RETRY_MS);
  }

  /** Removals waiting to be committed (kept while the disk refuses them). */
  get pendingRemovals(): number {
    return this.removals.length;
  }

  /** Drops chunks buffered longer than the age limit (oldest first, stopping at the first young one), and what left the window. */
  expire(): void {
    const cutoff = this.now() - this.limits.maxAgeMs;
    let young = false;
    let dropped: [number, number];
    try {
      dropped = this.db.transaction(() => this.backlog.dropOldestWhile(() => !young, (enq) => (young = enq >= cutoff)))();
    } catch (e) {
      // Nothing was dropped; the next tick tries again.
      this.backlog.reload();
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
    return this.backlog.read(afterId, toId, maxPoints);
  }

  /** The chunks still buffered in [lo, hi] (some may have been dropped), or undefined when none are left. */
  span(lo: number, hi: number): ChunkSpan | undefined {
    return this.backlog.span(lo, hi);
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
    // Merged rows take ids of the rows they merge: none is sent from memory after this.
    this.backlog.fresh.forget();
    this.events.space?.beforeWrite();
    try {
      const r = this.db.transaction(() => compactRows(this.db, this.encoder, dec, this.now(), options, ranges, ROW_OVERHEAD, this.acked.gaps(0, MAX_ID)))();
      this.backlog.account(0, r.bytesDelta, r.added - r.removed);
      // The window is kept compressed the same way (nothing of it is in flight), each range on its own.
      if (this.history.depth.rows > 0) {
        const h = this.db.transaction(() => compactRows(this.db, this.encoder, dec, this.now(), options, [], ROW_OVERHEAD, this.acked.spans))();
        this.history.account(0, h.bytesDelta, h.added - h.removed);
      }
      this.events.space?.committed();
      return r;
    } catch {
      this.backlog.reload();
      this.history.reload();
      return undefined;
    }
  }

  /** Chunks just committed, kept for the send path's first read (fresh-rows.ts). */
  get fresh(): FreshRows {
    return this.backlog.fresh;
  }

  /** The database, for local reads of the backlog's and the window's rows (agent/history/). */
  get database(): Database {
    return this.db;
  }

  firstAfter(id: number): { id: number; enq: number } | undefined {
    return this.backlog.firstAfter(id);
  }

  /** The last chunk after `afterId` buffered before `time`, if any. */
  lastBufferedBefore(afterId: number, time: number): number | undefined {
    return this.backlog.lastBufferedBefore(afterId, time);
  }

  maxId(): number {
    return this.backlog.maxId();
  }

  /** Buffering time of the oldest chunk, or undefined when the buffer is empty. */
  oldestBufferedAt(): number | undefined {
    return this.backlog.oldestBufferedAt();
  }

  get depth(): { points: number; bytes: number; chunks: number } {
    return this.backlog.depth;
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
