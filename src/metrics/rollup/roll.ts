/**
 * The roller's arithmetic for one series and one batch of newly sealed chunks, whatever the
 * store: which blocks it needs, which raw points, and the blocks that result. The store runs
 * it in one transaction with the advance of its progress mark (docs/storage.md, "Rollup
 * tiers"), so a crash recomputes nothing twice and misses nothing.
 *
 * Every row is the summary of the chunks up to the tier's progress mark (staleness markers,
 * every NaN stored, are no points). A bucket touched by
 * the batch's points is, on the finest tier, computed again from the raw points stored for it
 * (exact: a point written twice counts once, the last write winning) while the raw chunks it
 * was computed from are all still stored (`srcExp` in the future); on a coarser tier composed
 * again from the finer tier's rows while those still hold every point the row counted. Where
 * that is no longer so (raw points or finer rows expired), the batch's points are merged into
 * the row as it is: a timestamp written again after its first copy expired then counts twice,
 * and a counter reset between the late and the earlier points is not seen.
 */
import { QuantileSketch } from "../quantile-sketch.ts";
import { KIND_AVAILABILITY, KIND_COUNTER, type NumericRows, type RollupKind, type Rows } from "./rows.ts";
import { type AvailBucket, type NumBucket, type RollScratch, RowsBuilder } from "./rows-builder.ts";
import { isStaleMarker } from "../../prometheus/staleness.ts";
import { AvailSeg, NumSeg } from "./segment.ts";
import { blockSpan, type RollupTier } from "./tiers.ts";

/** Points in time order, one per timestamp. */
export interface PointRun {
  ts: Float64Array;
  vals: Float64Array;
}

/** Raw points read for recomputing, with the chunks they came from. */
export interface RawSpan extends PointRun {
  /** The span read, [lo, hi). */
  lo: number;
  hi: number;
  /** Per chunk read: its first and last timestamp, and when it expires. */
  chunks: { start: number; end: number; expires: number }[];
}

export interface BlockRef {
  /** Index of the tier in the configured list. */
  tier: number;
  start: number;
}

export interface BlockChange extends BlockRef {
  /** The block's rows; n = 0 when no bucket is left (delete the block). */
  rows: Rows;
  /** The first bucket index the batch touched: the rows before it are the block's as loaded (block-segments.ts appends the rest). */
  from: number;
}

const key = (tier: number, start: number) => `${tier}:${start}`;
const blockOf = (t: RollupTier, bucket: number) => Math.floor((bucket * t.step) / blockSpan(t)) * blockSpan(t);

/**
 * One series' update: `tiers` are all the configured tiers (finest first), `updating` the
 * indexes of those whose progress mark is below the batch (the others already hold it).
 */
export class SeriesRoll {
  private readonly touched: number[][];
  private readonly old = new Map<string, Rows | undefined>();

  constructor(
    readonly kind: RollupKind,
    readonly tiers: readonly RollupTier[],
    readonly updating: readonly number[],
    /** The batch's points of this series in time order (the later chunk winning a timestamp), stale markers included. */
    readonly points: PointRun,
    readonly now: number,
    /** Builders reused between series (the rows valid until the owner resets it); fresh arrays without. */
    private readonly scratch?: RollScratch,
  ) {
    // The points are in time order: each tier's buckets, ascending, in one pass.
    this.touched = tiers.map((t) => {
      const out: number[] = [];
      const ts = points.ts;
      for (let i = 0; i < ts.length; i++) {
        const b = Math.floor(ts[i]! / t.step);
        if (out.length === 0 || out[out.length - 1] !== b) out.push(b);
      }
      return out;
    });
  }

  /** Blocks to load before planRaw: those of touched buckets on each updating tier and the finer tier's under them. */
  blocksNeeded(): BlockRef[] {
    const out = new Map<string, BlockRef>();
    for (const k of this.updating) {
      for (const b of this.touched[k]!) {
        for (const tier of k > 0 ? [k, k - 1] : [k]) {
          const start = blockOf(this.tiers[tier]!, Math.floor((b * this.tiers[k]!.step) / this.tiers[tier]!.step));
          out.set(key(tier, start), { tier, start });
        }
      }
    }
    return [...out.values()];
  }

  /** Stores a block as loaded (undefined when it does not exist). */
  loaded(ref: BlockRef, rows: Rows | undefined): void {
    this.old.set(key(ref.tier, ref.start), rows);
  }

  private row(tier: number, bucket: number): { rows: Rows; j: number } | undefined {
    const t = this.tiers[tier]!;
    const start = blockOf(t, bucket);
    const rows = this.old.get(key(tier, start));
    if (!rows) return undefined;
    const idx = bucket - start / t.step;
    const j = lowerBound(rows.idx, idx);
    return j < rows.n && rows.idx[j] === idx ? { rows, j } : undefined;
  }

  private recomputesFromRaw(bucket: number): boolean {
    const r = this.row(0, bucket);
    return !r || r.rows.srcExp[r.j]! > this.now;
  }

  /** Raw spans [lo, hi) to read (chunks up to the batch only): the finest tier's buckets to compute again. */
  planRaw(): [number, number][] {
    if (!this.updating.includes(0)) return [];
    const step = this.tiers[0]!.step;
    const spans: [number, number][] = [];
    for (const b of this.touched[0]!) {
      if (!this.recomputesFromRaw(b)) continue;
      const last = spans.at(-1);
      if (last && last[1] === b * step) last[1] += step;
      else spans.push([b * step, (b + 1) * step]);
    }
    return spans;
  }

  /**
   * The changed blocks, given the raw points of planRaw's spans (in its order). Each block is
   * built bucket by bucket, every bucket summarized right where it goes: its segment (and
   * sketches) then serves the next bucket (SegPool), so that a sketch's bins are grown once
   * per run rather than once per bucket. With a RollScratch the blocks' rows are views into
   * its columns, valid until its owner resets it.
   */
  compute(raw: readonly RawSpan[]): BlockChange[] {
    const changes: BlockChange[] = [];
    const fresh = new Map<string, Rows>();
    for (const k of [...this.updating].sort((a, b) => a - b)) {
      const t = this.tiers[k]!;
      const touched = this.touched[k]!;
      for (let i = 0; i < touched.length; ) {
        const start = blockOf(t, touched[i]!);
        const first = start / t.step;
        const from = touched[i]! - first;
        const old = this.old.get(key(k, start));
        const out = this.scratch ? this.scratch.builder(this.kind) : new RowsBuilder(this.kind);
        let j = 0;
        // Old rows not touched and the touched buckets computed anew, in bucket order.
        for (; i < touched.length && blockOf(t, touched[i]!) === start; i++) {
          const b = touched[i]!;
          const idx = b - first;
          if (old) {
            const until = lowerBound(old.idx, idx, j, old.n);
            out.copyRange(old, j, until);
            j = until;
          }
          if (old && j < old.n && old.idx[j] === idx) j++;
          const bucket = k === 0 ? this.finest(b, raw) : this.coarse(k, b, fresh);
          if (bucket) {
            bucket.idx = idx;
            if (this.kind === KIND_AVAILABILITY) out.availability(bucket as AvailBucket);
            else out.numeric(bucket as NumBucket);
          }
          segs.release();
        }
        if (old) out.copyRange(old, j, old.n);
        const rows = out.finish();
        fresh.set(key(k, start), rows);
        changes.push({ tier: k, start, rows, from });
      }
    }
    return changes;
  }

  private newSeg(): NumSeg {
    return segs.take(this.kind);
  }

  /** The batch's points in [a, a + step) as a bucket (for merging). */
  private batchBucket(a: number, step: number): NumBucket | AvailBucket {
    return this.summarize(this.points, a, a + step, Number.POSITIVE_INFINITY);
  }

  /** The points of [a, b) as a bucket (staleness markers are no points). */
  private summarize(p: PointRun, a: number, b: number, srcExp: number): NumBucket | AvailBucket {
    let i = lowerBound(p.ts, a);
    if (this.kind === KIND_AVAILABILITY) {
      const seg = new AvailSeg();
      for (; i < p.ts.length && p.ts[i]! < b; i++) seg.addPoint(p.ts[i]!, p.vals[i]!);
      return { idx: 0, seg, srcExp };
    }
    const seg = this.newSeg();
    let edge: number | undefined;
    if (i < p.ts.length && p.ts[i] === a) {
      if (!isStaleMarker(p.vals[i]!)) edge = p.vals[i]!;
      i++;
    }
    for (; i < p.ts.length && p.ts[i]! < b; i++) seg.addPoint(p.ts[i]!, p.vals[i]!);
    return { idx: 0, edge, seg, srcExp };
  }

  private empty(b: NumBucket | AvailBucket): boolean {
    return "edge" in b ? b.edge === undefined && b.seg.n === 0 : b.seg.samples === 0;
  }

  /** A finest-tier bucket: from the raw points while they are all stored, else the row merged with the batch. */
  private finest(bucket: number, raw: readonly RawSpan[]): NumBucket | AvailBucket | undefined {
    const step = this.tiers[0]!.step;
    const a = bucket * step;
    if (this.recomputesFromRaw(bucket)) {
      const span = raw.find((s) => s.lo <= a && a < s.hi);
      if (!span) throw new Error(`no raw points were read for the bucket at ${a}`);
      let exp = Number.POSITIVE_INFINITY;
      for (const c of span.chunks) if (c.start < a + step && c.end >= a && c.expires < exp) exp = c.expires;
      const b = this.summarize(span, a, a + step, exp);
      return this.empty(b) ? undefined : b;
    }
    return this.merged(this.row(0, bucket)!, this.batchBucket(a, step));
  }

  /** A coarser bucket: composed from the finer rows while they hold all it counted, else merged with the batch. */
  private coarse(k: number, bucket: number, fresh: Map<string, Rows>): NumBucket | AvailBucket | undefined {
    const t = this.tiers[k]!;
    const f = this.tiers[k - 1]!;
    const a = bucket * t.step;
    const old = this.row(k, bucket);
    const childStart = blockOf(f, a / f.step);
    const before = this.old.get(key(k - 1, childStart));
    const after = fresh.get(key(k - 1, childStart)) ?? before;
    const lo = a / f.step - childStart / f.step;
    const hi = lo + t.step / f.step;
    if (old && total(old.rows, old.j) !== totalIn(before, lo, hi)) return this.merged(old, this.batchBucket(a, t.step));
    if (!after) return undefined;
    const b = composeBucket(this.kind, after, lo, hi, childStart, f.step, this.newSeg());
    return b && !this.empty(b) ? b : undefined;
  }

  /** A stored row with the batch's points of its bucket merged in (their raw neighbours are gone). */
  private merged(old: { rows: Rows; j: number }, add: NumBucket | AvailBucket): NumBucket | AvailBucket {
    const { rows, j } = old;
    if (rows.kind === KIND_AVAILABILITY) {
      const seg = new AvailSeg();
      seg.appendRow(rows, j);
      const late = (add as AvailBucket).seg;
      if (late.samples > 0 && late.firstT < seg.firstT) {
        late.appendSeg(seg);
        return { idx: 0, seg: late, srcExp: rows.srcExp[j]! };
      }
      seg.appendSeg(late);
      return { idx: 0, seg, srcExp: rows.srcExp[j]! };
    }
    const n = rows as NumericRows;
    const seg = this.newSeg();
    seg.appendInterior(n, j);
    const a = add as NumBucket;
    seg.mergeUnordered(a.seg);
    // The point on the bucket's start: the later write wins.
    const edge = a.edge !== undefined ? a.edge : n.edge[j] ? n.edgeV[j]! : undefined;
    return { idx: 0, edge, seg, srcExp: n.srcExp[j]! };
  }
}

function newSeg(kind: RollupKind): NumSeg {
  return new NumSeg(kind === KIND_COUNTER, new QuantileSketch(), kind === KIND_COUNTER ? new QuantileSketch() : undefined);
}

/**
 * Segments handed out for one bucket's computation and taken back, cleared, once the bucket is
 * in its block (release): their sketches keep the bins they grew. The roller is synchronous
 * from a bucket's first segment to its release, so one pool serves every SeriesRoll.
 */
export class SegPool {
  private readonly free: NumSeg[][] = [[], []];
  private readonly taken: NumSeg[] = [];
  /** Segments made so far (for tests). */
  made = 0;

  take(kind: RollupKind): NumSeg {
    let seg = this.free[kind === KIND_COUNTER ? 1 : 0]!.pop();
    if (!seg) {
      seg = newSeg(kind);
      this.made++;
    }
    this.taken.push(seg);
    return seg;
  }

  release(): void {
    for (const seg of this.taken) {
      seg.clear();
      this.free[seg.rates ? 1 : 0]!.push(seg);
    }
    this.taken.length = 0;
  }
}

export const segs = new SegPool();

/** Rows with lo ≤ idx < hi of a finer block (buckets from blockStart, `step` apart) composed into one bucket. */
export function composeBucket(kind: RollupKind, rows: Rows, lo: number, hi: number, blockStart: number, step: number, into?: NumSeg): NumBucket | AvailBucket {
  let j = lowerBound(rows.idx, lo);
  let srcExp = Number.POSITIVE_INFINITY;
  if (rows.kind === KIND_AVAILABILITY) {
    const seg = new AvailSeg();
    for (; j < rows.n && rows.idx[j]! < hi; j++) {
      seg.appendRow(rows, j);
      srcExp = Math.min(srcExp, rows.srcExp[j]!);
    }
    return { idx: 0, seg, srcExp };
  }
  const seg = into ?? newSeg(kind);
  let edge: number | undefined;
  for (let first = true; j < rows.n && rows.idx[j]! < hi; j++, first = false) {
    if (first && rows.idx[j] === lo) edge = rows.edge[j] ? rows.edgeV[j]! : undefined;
    else seg.appendEdge(rows, j, blockStart + rows.idx[j]! * step);
    seg.appendInterior(rows, j);
    srcExp = Math.min(srcExp, rows.srcExp[j]!);
  }
  return { idx: 0, edge, seg, srcExp };
}

/**
 * The blocks of a new coarser tier made from a finer tier's blocks of one series (a tier added
 * to the configuration): every coarse bucket composed from the finer rows under it.
 */
export function deriveBlocks(kind: RollupKind, finer: RollupTier, coarse: RollupTier, blocks: readonly { start: number; rows: Rows }[]): { start: number; rows: Rows }[] {
  const ratio = coarse.step / finer.step;
  const byBlock = new Map<number, (NumBucket | AvailBucket)[]>();
  for (const { start, rows } of blocks) {
    const first = start / finer.step;
    for (let j = 0; j < rows.n; ) {
      const c = Math.floor((first + rows.idx[j]!) / ratio);
      const lo = c * ratio - first;
      const b = composeBucket(kind, rows, lo, lo + ratio, start, finer.step);
      const cs = blockOf(coarse, c);
      b.idx = c - cs / coarse.step;
      let list = byBlock.get(cs);
      if (!list) byBlock.set(cs, (list = []));
      list.push(b);
      j = lowerBound(rows.idx, lo + ratio, j);
    }
  }
  return [...byBlock].map(([start, buckets]) => {
    const out = new RowsBuilder(kind);
    buckets.sort((a, b) => a.idx - b.idx);
    for (const b of buckets) kind === KIND_AVAILABILITY ? out.availability(b as AvailBucket) : out.numeric(b as NumBucket);
    return { start, rows: out.finish() };
  });
}

/** Points (the interior's and the edge) a row counts. */
function total(rows: Rows, j: number): number {
  if (rows.kind === KIND_AVAILABILITY) return rows.samples[j]!;
  return rows.cnt[j]! + rows.edge[j]!;
}

function totalIn(rows: Rows | undefined, lo: number, hi: number): number {
  let sum = 0;
  for (let j = rows ? lowerBound(rows.idx, lo) : 0; rows && j < rows.n && rows.idx[j]! < hi; j++) sum += total(rows, j);
  return sum;
}

export function lowerBound(a: ArrayLike<number>, x: number, from = 0, to = a.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

