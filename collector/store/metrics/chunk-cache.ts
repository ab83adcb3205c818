import type { Run } from "../../../src/metrics/run.ts";

/**
 * A sealed chunk as kept between reads: a codec block (format 1, compressed, decoded on each
 * read) or the decoded columns of a chunk of the first layout (format 0).
 */
export type CachedChunk = { n: number; block: Uint8Array; run?: undefined; reads?: number } | { n: number; run: Run; block?: undefined; reads?: number };

/** The Map entry and object headers an entry costs beside its bytes (measured ~100 B). */
const ENTRY_BYTES = 100;

/** Memory a decoded run holds in the cache: its columns' bytes, its strings and tags (estimated), an entry. */
function runBytes(columnBytes: number, strings: number, tags: number): number {
  return columnBytes + strings * 64 + tags * 32 + ENTRY_BYTES;
}

/** Memory an entry holds. */
function sizeOf(c: CachedChunk): number {
  if (c.block) return c.block.byteLength + ENTRY_BYTES;
  const r = c.run!;
  return runBytes(r.ts.byteLength + (r.nums?.byteLength ?? 0), r.strs?.length ?? 0, r.tags?.length ?? 0);
}

/** What a decoded copy of `n` numeric points (with tags, when given) holds in the cache: sizeOf of that run, before it is made. */
export function decodedBytes(n: number, tags?: readonly unknown[]): number {
  return runBytes(n * 16, 0, tags?.length ?? 0);
}

/**
 * Chunks by id within a byte budget, least recently read first out. Chunks are immutable and
 * their ids never reused, so an entry can only go stale by its chunk being deleted, and then
 * no read asks for that id again.
 *
 * With `keepReadWithinMs`, an entry read (or added) that recently is never thrown out to make
 * room: a newcomer that would need it is declined instead (admits() says so before the caller
 * makes it). Why: a query that reads more chunks than the cache holds, refreshed, read them in
 * the same order each time, so plain LRU threw every entry out before its next read; the
 * decoded copies' quarter of the cache kept 16 MiB of copies no read used and made as many
 * again in garbage (issue 28, the range bench; docs/storage.md thirty-third part). Kept, the entries
 * of such a query's first pass are read again by the next, and a dashboard's are not pushed out
 * by a large query meanwhile.
 */
export class ChunkCache {
  private readonly map = new Map<number, { chunk: CachedChunk; bytes: number; readAt: number }>();
  private bytes = 0;

  constructor(
    private readonly budget: number,
    private readonly clock: () => number = Date.now,
    private readonly keepReadWithinMs = 0,
  ) {}

  get(cid: number): CachedChunk | undefined {
    const e = this.map.get(cid);
    if (!e) return undefined;
    // Re-insert to mark as most recently read (Map keeps insertion order).
    this.map.delete(cid);
    this.map.set(cid, e);
    if (this.keepReadWithinMs > 0) e.readAt = this.clock();
    return e.chunk;
  }

  /**
   * Whether an entry of `bytes` would be kept now; when it would, room is made for it (entries
   * not read within keepReadWithinMs thrown out, least recently read first). A caller that makes
   * the entry only to add it asks first.
   */
  admits(bytes: number): boolean {
    if (this.budget <= 0 || bytes > this.budget / 4) return false;
    if (this.keepReadWithinMs <= 0) return true;
    const now = this.clock();
    for (const [k, e] of this.map) {
      if (this.bytes + bytes <= this.budget) return true;
      if (now - e.readAt < this.keepReadWithinMs) return false;
      this.map.delete(k);
      this.bytes -= e.bytes;
    }
    return this.bytes + bytes <= this.budget;
  }

  set(cid: number, chunk: CachedChunk): void {
    const bytes = sizeOf(chunk);
    this.delete(cid);
    if (!this.admits(bytes)) return;
    this.map.set(cid, { chunk, bytes, readAt: this.keepReadWithinMs > 0 ? this.clock() : 0 });
    this.bytes += bytes;
    for (const [k, e] of this.map) {
      if (this.bytes <= this.budget) break;
      this.map.delete(k);
      this.bytes -= e.bytes;
    }
  }

  delete(cid: number): void {
    const old = this.map.get(cid);
    if (!old) return;
    this.bytes -= old.bytes;
    this.map.delete(cid);
  }

  get size(): { entries: number; bytes: number; budget: number } {
    return { entries: this.map.size, bytes: this.bytes, budget: this.budget };
  }
}
