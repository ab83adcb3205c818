import type { Rows } from "../../../src/metrics/rollup/rows.ts";

/**
 * Bytes a decoded block holds: its columns as float64, and for its sketches (decoded when first
 * read) about four times their stored bytes, most of the block's.
 */
function sizeOf(r: Rows, stored: number): number {
  let bytes = 200;
  for (const k of Object.keys(r)) {
    if (k === "sketch" || k === "rateSketch") continue;
    const v = (r as unknown as Record<string, unknown>)[k];
    if (v instanceof Float64Array) bytes += v.byteLength;
  }
  return r.kind === 2 ? bytes : bytes + 4 * stored;
}

/**
 * Decoded rollup blocks kept between queries, least recently used out first, within a byte
 * budget: a dashboard's long-range chart asks for the same blocks at each refresh. Entries are
 * dropped when the roller rewrites or deletes their block.
 */
export class RollupBlockCache {
  private readonly map = new Map<string, { rows: Rows | undefined; bytes: number; stored: number }>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  private static key(handle: number, step: number, start: number): string {
    return `${handle}:${step}:${start}`;
  }

  /** The block, from the cache or `load` (which gives its rows and stored size); `stored` is its stored size. */
  getOrLoad(handle: number, step: number, start: number, load: () => { rows: Rows | undefined; stored: number }): { rows: Rows | undefined; stored: number } {
    const key = RollupBlockCache.key(handle, step, start);
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit);
      return hit;
    }
    const got = load();
    this.set(key, got.rows, got.stored);
    return got;
  }

  private set(key: string, rows: Rows | undefined, stored: number): void {
    if (this.budget <= 0) return;
    const bytes = rows ? sizeOf(rows, stored) : 100;
    if (bytes > this.budget / 4) return;
    this.map.set(key, { rows, bytes, stored });
    this.bytes += bytes;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.budget) break;
      this.map.delete(k);
      this.bytes -= v.bytes;
    }
  }

  delete(handle: number, step: number, start: number): void {
    const key = RollupBlockCache.key(handle, step, start);
    const e = this.map.get(key);
    if (!e) return;
    this.map.delete(key);
    this.bytes -= e.bytes;
  }

  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }

  get size(): { bytes: number; blocks: number } {
    return { bytes: this.bytes, blocks: this.map.size };
  }
}
