/**
 * How a query reads one series over an interval [lo, hi) (ms, integers): the coarsest tier's
 * whole buckets inside it, finer tiers' buckets towards its ends, and raw points for what is
 * left — so that the answer is the one raw points give (docs/storage.md, "What each query
 * reads"). A bucket [a, b) of a numeric tier also serves (a, b) alone (its interior) and
 * [a, a + 1) (its edge point), which is what Prometheus' left-open windows (s, e] need when s
 * and e lie on the tier's grid: (s, e] is [s + 1, e + 1).
 *
 * A stored row stands for the raw points of its bucket while nothing newer is pending there
 * (`pending`) and the raw chunks it was computed from are still stored (srcExp > now). Where those chunks are gone,
 * the row is all there is: it is used as it is, and a piece of the interval finer than what
 * is stored there goes with the stored bucket that holds it, to the interval where that
 * bucket starts.
 */
import type { Rows } from "./rows.ts";
import { KIND_AVAILABILITY } from "./rows.ts";
import type { RollupTier } from "./tiers.ts";

/** A row found for tier k's bucket starting at a. */
export interface FoundRow {
  rows: Rows;
  j: number;
}

export interface RowLookup {
  readonly tiers: readonly RollupTier[];
  readonly now: number;
  /** The stored row of tier k's bucket starting at `a`, if any. */
  row(k: number, a: number): FoundRow | undefined;
  /** Whether some point in [lo, hi) is not in the tiers yet (head, unsealed, or not rolled up). */
  pending(lo: number, hi: number): boolean;
  /** True when no tier stores a block overlapping [lo, hi) (then only raw points may be there). */
  empty(lo: number, hi: number): boolean;
}

/** All of a bucket, its edge point alone, or its interior alone. */
export const PART_ALL = 0;
export const PART_EDGE = 1;
export const PART_INTERIOR = 2;

export interface TierPiece {
  k: number;
  /** Bucket start. */
  a: number;
  part: number;
  found: FoundRow;
}

export interface RawPiece {
  lo: number;
  hi: number;
}

export type Piece = TierPiece | RawPiece;

export interface Cover {
  pieces: Piece[];
  /** Tiers read (indexes), for the response's resolution header. */
  tiers: Set<number>;
  /** Whether every raw point of the interval is still stored (no row used was computed from expired chunks). */
  rawComplete: boolean;
  /** ms of the interval left to raw points. */
  rawSpan: number;
}

export const isRaw = (p: Piece): p is RawPiece => !("k" in p);

class Planner {
  readonly out: Cover = { pieces: [], tiers: new Set(), rawComplete: true, rawSpan: 0 };
  private readonly numeric: boolean;

  constructor(
    private readonly l: RowLookup,
    private readonly lo: number,
    private readonly hi: number,
    kind: number,
  ) {
    this.numeric = kind !== KIND_AVAILABILITY;
  }

  private raw(lo: number, hi: number): void {
    if (lo >= hi) return;
    const last = this.out.pieces.at(-1);
    if (last && isRaw(last) && last.hi === lo) last.hi = hi;
    else this.out.pieces.push({ lo, hi });
    this.out.rawSpan += hi - lo;
  }

  private tier(k: number, a: number, part: number, found: FoundRow): void {
    this.out.pieces.push({ k, a, part, found });
    this.out.tiers.add(k);
  }

  /**
   * Tier k's piece [lo, hi) of bucket a (all of it, or its edge or interior): the row when it
   * stands for the raw points there, or when the raw points are gone; else finer tiers.
   */
  private piece(k: number, a: number, lo: number, hi: number, part: number): void {
    const f = this.l.row(k, a);
    if (f) {
      const stored = f.rows.srcExp[f.j]! > this.l.now;
      if (!stored) this.out.rawComplete = false;
      if (!stored || !this.l.pending(lo, hi)) {
        this.tier(k, a, part, f);
        return;
      }
    }
    this.finer(k - 1, lo, hi);
  }

  /** [lo, hi) at tier k or finer. */
  finer(k: number, lo: number, hi: number): void {
    if (lo >= hi) return;
    if (k < 0 || this.l.empty(lo, hi)) {
      this.rawOrStored(lo, hi);
      return;
    }
    const T = this.l.tiers[k]!.step;
    const a0 = Math.ceil(lo / T) * T;
    const a1 = Math.floor(hi / T) * T;
    if (a0 >= a1) {
      const b = Math.floor(lo / T) * T;
      if (this.numeric && lo === b + 1 && hi === b + T) this.piece(k, b, lo, hi, PART_INTERIOR);
      else if (this.numeric && lo === b && hi === b + 1) this.piece(k, b, lo, hi, PART_EDGE);
      else if (a0 === a1 && lo < a0) {
        // Straddles one grid line without a whole bucket on either side.
        this.left(k, lo, a0);
        this.right(k, a1, hi);
      } else this.finer(k - 1, lo, hi);
      return;
    }
    this.left(k, lo, a0);
    for (let a = a0; a < a1; a += T) this.piece(k, a, a, a + T, PART_ALL);
    this.right(k, a1, hi);
  }

  private left(k: number, lo: number, a0: number): void {
    if (lo >= a0) return;
    const T = this.l.tiers[k]!.step;
    if (this.numeric && lo === a0 - T + 1) this.piece(k, a0 - T, lo, a0, PART_INTERIOR);
    else this.finer(k - 1, lo, a0);
  }

  private right(k: number, a1: number, hi: number): void {
    if (a1 >= hi) return;
    if (this.numeric && hi === a1 + 1) this.piece(k, a1, a1, hi, PART_EDGE);
    else this.finer(k - 1, a1, hi);
  }

  /**
   * Raw points for [lo, hi) while they are stored; where they are gone, the finest stored row
   * that holds lo stands for the piece, counted in this interval if it starts in it.
   */
  private rawOrStored(lo: number, hi: number): void {
    for (let k = 0; k < this.l.tiers.length; k++) {
      const T = this.l.tiers[k]!.step;
      const a = Math.floor(lo / T) * T;
      const f = this.l.row(k, a);
      if (!f) continue;
      if (f.rows.srcExp[f.j]! > this.l.now) break;
      this.out.rawComplete = false;
      if (a >= this.lo && a < this.hi && !this.out.pieces.some((p) => !isRaw(p) && p.k === k && p.a === a)) this.tier(k, a, PART_ALL, f);
      return;
    }
    this.raw(lo, hi);
  }
}

/** How to read [lo, hi) of one series (see the module comment). */
export function cover(l: RowLookup, lo: number, hi: number, kind: number): Cover {
  const p = new Planner(l, lo, hi, kind);
  p.finer(l.tiers.length - 1, lo, hi);
  return p.out;
}
