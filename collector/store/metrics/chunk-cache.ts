import type { Run } from "./run.ts";

/**
 * Decoded chunks by id, least recently used first out, within a byte budget. Chunks are
 * immutable and their ids never reused, so an entry can only go stale by its chunk being
 * deleted, and then no read asks for that id again.
 */
export class ChunkCache {
  private readonly map = new Map<number, { run: Run; bytes: number }>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  get(cid: number): Run | undefined {
    const e = this.map.get(cid);
    if (!e) return undefined;
    // Re-insert to mark as most recently used (Map keeps insertion order).
    this.map.delete(cid);
    this.map.set(cid, e);
    return e.run;
  }

  set(cid: number, run: Run): void {
    if (this.budget <= 0) return;
    const bytes = run.ts.byteLength + (run.nums?.byteLength ?? 0) + (run.strs?.length ?? 0) * 64 + (run.tags ? run.tags.length * 32 : 0);
    if (bytes > this.budget / 4) return;
    const old = this.map.get(cid);
    if (old) {
      this.bytes -= old.bytes;
      this.map.delete(cid);
    }
    this.map.set(cid, { run, bytes });
    this.bytes += bytes;
    for (const [k, e] of this.map) {
      if (this.bytes <= this.budget) break;
      this.map.delete(k);
      this.bytes -= e.bytes;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.map.size, bytes: this.bytes };
  }
}
