import type { Statement } from "bun:sqlite";

/**
 * Per series with chunks not rolled up yet: their time hull [lo, hi] and newest chunk id, for
 * queries (which read raw points there) without a lookup per query. Kept by the flush (sealed)
 * and the roller (rolled); read again from the table when a window closes or a commit failed.
 */
export class UnrolledChunks {
  private map = new Map<number, { lo: number; hi: number; cid: number }>();

  /** `query`: per series, the chunks after a mark that no series mark covers ([sid, lo, hi, cid] rows). */
  constructor(private readonly query: Statement) {}

  /** Everything after `mark`, as stored. */
  load(mark: number): void {
    this.map = new Map();
    for (const [sid, lo, hi, cid] of this.query.values(mark) as [number, number, number, number][]) this.map.set(sid, { lo, hi, cid });
  }

  /** Chunks a flush committed (sid, cid, start, end, expiry, five numbers each). */
  sealed(added: readonly number[]): void {
    for (let k = 0; k < added.length; k += 5) {
      const sid = added[k]!;
      const e = this.map.get(sid);
      if (e) {
        e.lo = Math.min(e.lo, added[k + 2]!);
        e.hi = Math.max(e.hi, added[k + 3]!);
        e.cid = Math.max(e.cid, added[k + 1]!);
      } else this.map.set(sid, { lo: added[k + 2]!, hi: added[k + 3]!, cid: added[k + 1]! });
    }
  }

  /** The series' chunks up to `end` are in the tiers. */
  rolled(sid: number, end: number): void {
    const u = this.map.get(sid);
    if (u && u.cid <= end) this.map.delete(sid);
  }

  /** Series with chunks not rolled up. */
  get series(): number {
    return this.map.size;
  }

  /** The range [lo, hi + 1) of the series' chunks not rolled up, flat; empty when none. */
  range(sid: number): number[] {
    const u = this.map.get(sid);
    return u ? [u.lo, u.hi + 1] : [];
  }
}
