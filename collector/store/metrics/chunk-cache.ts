import type { Run } from "../../../src/metrics/run.ts";

/**
 * A sealed chunk as kept between reads: a codec block (format 1, compressed, decoded on each
 * read) or the decoded columns of a chunk of the first layout (format 0).
 */
export type CachedChunk = { n: number; block: Uint8Array; run?: undefined; reads?: number } | { n: number; run: Run; block?: undefined; reads?: number };

/** Memory an entry holds: its bytes plus the Map entry and object headers (measured ~100 B). */
function sizeOf(c: CachedChunk): number {
  if (c.block) return c.block.byteLength + 100;
  const r = c.run!;
  return r.ts.byteLength + (r.nums?.byteLength ?? 0) + (r.strs?.length ?? 0) * 64 + (r.tags ? r.tags.length * 32 : 0) + 100;
}

/**
 * Chunks by id, least recently used first out, within a byte budget. Chunks are immutable and
 * their ids never reused, so an entry can only go stale by its chunk being deleted, and then
 * no read asks for that id again.
 */
export class ChunkCache {
  private readonly map = new Map<number, { chunk: CachedChunk; bytes: number }>();
  private bytes = 0;
  private evicted = 0;
  private windowStart = 0;

  constructor(
    private readonly budget: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * True while the cache has thrown out more than its whole budget within the last 10 s: the
   * reads cycle through more than it holds (a query over many series), so adding entries only
   * costs copies that are evicted before anyone reads them.
   */
  churning(): boolean {
    const now = this.clock();
    if (now - this.windowStart > 10_000) {
      this.windowStart = now;
      this.evicted = 0;
    }
    return this.evicted > this.budget;
  }

  get(cid: number): CachedChunk | undefined {
    const e = this.map.get(cid);
    if (!e) return undefined;
    // Re-insert to mark as most recently used (Map keeps insertion order).
    this.map.delete(cid);
    this.map.set(cid, e);
    return e.chunk;
  }

  set(cid: number, chunk: CachedChunk): void {
    if (this.budget <= 0) return;
    const bytes = sizeOf(chunk);
    if (bytes > this.budget / 4) return;
    this.delete(cid);
    this.map.set(cid, { chunk, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.map) {
      if (this.bytes <= this.budget) break;
      this.map.delete(k);
      this.bytes -= e.bytes;
      this.evicted += e.bytes;
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
