/**
 * Chunk lists kept between reads (batch-reads.ts): a dashboard repeats its queries over
 * almost the same range, and looking up which chunks a series has was a SQLite statement per
 * LIST_BATCH series each time. An entry holds every chunk of one series whose start_ts is in
 * [from, to), in cid (write) order; a read over [start, end) uses it when it covers
 * [start - WINDOW_MS, end) and filters the range and the expiry itself, as the statement does.
 * A query that ends near the present looks up with to = Infinity, so the next refresh (a
 * later end) still finds its lists.
 *
 * Entries stay exact: a flush appends the chunks it committed to the entries of their series,
 * retention and deletes drop the entries of the series they touched. The size is bounded by
 * the chunks held: the least recently used entries go first.
 */

/** Per chunk: cid, start_ts, end_ts, expires_at (NaN for a chunk from before expires_at). */
export const CHUNK_FIELDS = 4;

export interface ChunkList {
  /** Every chunk of the series with from <= start_ts < to is listed. */
  from: number;
  to: number;
  /** CHUNK_FIELDS numbers per chunk, in cid order. */
  chunks: number[];
}

export class ChunkLists {
  private readonly lists = new Map<number, ChunkList>();
  private held = 0;
  /** Statements that looked lists up (for tests). */
  lookups = 0;

  constructor(private readonly maxChunks: number) {}

  /** The list of `sid` that covers chunks starting in [from, to), if kept. */
  get(sid: number, from: number, to: number): ChunkList | undefined {
    const l = this.lists.get(sid);
    if (!l || l.from > from || l.to < to) return undefined;
    // Most recently used last: eviction takes the first.
    this.lists.delete(sid);
    this.lists.set(sid, l);
    return l;
  }

  /** Keeps a list just looked up (replacing one that covered less); false when it does not fit. */
  set(sid: number, l: ChunkList): boolean {
    this.drop(sid);
    const n = l.chunks.length / CHUNK_FIELDS;
    if (n > this.maxChunks) return false;
    this.lists.set(sid, l);
    this.held += n;
    this.evict();
    return this.lists.has(sid);
  }

  /** A chunk committed for `sid` (a flush): listed where the entry covers it. */
  added(sid: number, cid: number, startTs: number, endTs: number, expiresAt: number): void {
    const l = this.lists.get(sid);
    if (!l || startTs < l.from || startTs >= l.to) return;
    l.chunks.push(cid, startTs, endTs, expiresAt);
    this.held++;
    this.evict();
  }

  /** Chunks of `sid` were deleted (retention, a deleted metric). */
  drop(sid: number): void {
    const l = this.lists.get(sid);
    if (!l) return;
    this.lists.delete(sid);
    this.held -= l.chunks.length / CHUNK_FIELDS;
  }

  clear(): void {
    this.lists.clear();
    this.held = 0;
  }

  /** Chunks listed, and series with a list (for tests and memory). */
  get size(): { chunks: number; series: number } {
    return { chunks: this.held, series: this.lists.size };
  }

  private evict(): void {
    for (const [sid, l] of this.lists) {
      if (this.held <= this.maxChunks) return;
      this.lists.delete(sid);
      this.held -= l.chunks.length / CHUNK_FIELDS;
    }
  }
}
