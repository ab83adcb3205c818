/**
 * Building the rows of a block bucket by bucket (the roller's output): rows copied from the
 * block as stored, and buckets summarized anew (a NumSeg or AvailSeg and the edge point).
 */
import type { QuantileSketch } from "../quantile-sketch.ts";
import { FloatArena } from "../../runtime/float-arena.ts";
import {
  AVAILABILITY_COLUMNS,
  type AvailabilityRows,
  KIND_AVAILABILITY,
  KIND_COUNTER,
  NUMERIC_COLUMNS,
  type NumericRows,
  RATE_COLUMNS,
  type RollupKind,
  type Rows,
  SKETCH_COLUMNS,
  type SketchColumns,
} from "./rows.ts";
import type { AvailSeg, NumSeg } from "./segment.ts";

/** A numeric bucket summarized anew. */
export interface NumBucket {
  /** Bucket number within the block. */
  idx: number;
  /** The point exactly at the bucket start: its value, or undefined. */
  edge: number | undefined;
  /** The points of the interior (a, b). */
  seg: NumSeg;
  srcExp: number;
}

export interface AvailBucket {
  idx: number;
  seg: AvailSeg;
  srcExp: number;
}

/** A column of numbers grown in place; reset keeps its memory. */
class Col {
  a = new Float64Array(64);
  n = 0;

  push(v: number): void {
    if (this.n === this.a.length) this.grow(this.n + 1);
    this.a[this.n++] = v;
  }

  /** Appends src[from..to). */
  pushRange(src: Float64Array, from: number, to: number): void {
    const need = this.n + to - from;
    if (need > this.a.length) this.grow(need);
    this.a.set(src.subarray(from, to), this.n);
    this.n = need;
  }

  /** Room for `need` numbers at least, by doubling, what is held kept. */
  private grow(need: number): void {
    let size = this.a.length * 2;
    while (size < need) size *= 2;
    const next = new Float64Array(size);
    next.set(this.a.subarray(0, this.n));
    this.a = next;
  }

  /** The column: a view of this memory (`view`), valid until the next reset, or a copy. */
  out(view: boolean): Float64Array {
    return view ? this.a.subarray(0, this.n) : this.a.slice(0, this.n);
  }
}

class SketchBuilder {
  readonly cols: Record<string, Col> = Object.fromEntries(SKETCH_COLUMNS.map((c) => [c, new Col()]));
  readonly gaps = new Col();
  readonly counts = new Col();
  readonly at = new Col();

  reset(): void {
    for (const c of SKETCH_COLUMNS) this.cols[c]!.n = 0;
    this.gaps.n = this.counts.n = this.at.n = 0;
  }

  /** Rows j0…j1 − 1 of a block's sketches, a column at a time. */
  copyRange(s: SketchColumns, j0: number, j1: number): void {
    for (const c of SKETCH_COLUMNS) this.cols[c]!.pushRange(s[c], j0, j1);
    this.gaps.pushRange(s.gaps, s.at[j0]!, s.at[j1]!);
    this.counts.pushRange(s.counts, s.at[j0]!, s.at[j1]!);
  }

  add(q: QuantileSketch): void {
    const bins = (d: QuantileSketch["pos"], count: string, first: string) => {
      let n = 0;
      let prev = 0;
      for (let k = d.lo; k <= d.hi; k++) {
        const c = d.counts[k - d.offset]!;
        if (c === 0) continue;
        if (n === 0) this.cols[first]!.push(k);
        this.gaps.push(n === 0 ? 0 : k - prev - 1);
        this.counts.push(c);
        prev = k;
        n++;
      }
      if (n === 0) this.cols[first]!.push(0);
      this.cols[count]!.push(n);
    };
    bins(q.pos, "pn", "pf");
    bins(q.neg, "nn", "nf");
    this.cols.zero!.push(q.zero);
    this.cols.pinf!.push(q.posInf);
    this.cols.ninf!.push(q.negInf);
  }

  finish(n: number, view: boolean): SketchColumns {
    const s = {} as SketchColumns;
    for (const c of SKETCH_COLUMNS) s[c] = this.cols[c]!.out(view);
    s.gaps = this.gaps.out(view);
    s.counts = this.counts.out(view);
    const at = this.at;
    at.n = 0;
    at.push(0);
    for (let j = 0; j < n; j++) at.push(at.a[j]! + s.pn[j]! + s.nn[j]!);
    s.at = at.out(view);
    return s;
  }
}

/**
 * The rows of one block, appended in bucket order. A builder made `reusable` hands out rows
 * whose columns are views of its own memory: valid until its next reset (RollScratch).
 */
export class RowsBuilder {
  private readonly cols: Record<string, Col>;
  private readonly names: readonly string[];
  private readonly sketch: SketchBuilder | undefined;
  private readonly rateSketch: SketchBuilder | undefined;
  n = 0;

  constructor(
    readonly kind: RollupKind,
    readonly reusable = false,
  ) {
    this.names = kind === KIND_AVAILABILITY ? AVAILABILITY_COLUMNS : kind === KIND_COUNTER ? [...NUMERIC_COLUMNS, ...RATE_COLUMNS] : NUMERIC_COLUMNS;
    this.cols = Object.fromEntries(this.names.map((c) => [c, new Col()]));
    this.sketch = kind === KIND_AVAILABILITY ? undefined : new SketchBuilder();
    this.rateSketch = kind === KIND_COUNTER ? new SketchBuilder() : undefined;
  }

  reset(): void {
    for (const c of this.names) this.cols[c]!.n = 0;
    this.sketch?.reset();
    this.rateSketch?.reset();
    this.n = 0;
  }

  private put(c: string, v: number): void {
    this.cols[c]!.push(v);
  }

  /**
   * Rows j0…j1 − 1 of a stored block, as they are: a column at a time (row by row, copying the
   * untouched rows of a day's block was a third of a step by evening; issue 28).
   */
  copyRange(rows: Rows, j0: number, j1: number): void {
    if (j1 <= j0) return;
    const rec = rows as unknown as Record<string, Float64Array>;
    for (const c of this.names) this.cols[c]!.pushRange(rec[c]!, j0, j1);
    if (rows.kind !== KIND_AVAILABILITY) {
      this.sketch!.copyRange(rows.sketch, j0, j1);
      if (this.rateSketch) this.rateSketch.copyRange(rows.rateSketch!, j0, j1);
    }
    this.n += j1 - j0;
  }

  numeric(b: NumBucket): void {
    const s = b.seg;
    const some = s.n > 0;
    this.put("idx", b.idx);
    this.put("edge", b.edge === undefined ? 0 : 1);
    this.put("edgeV", b.edge ?? 0);
    this.put("cnt", s.n);
    this.put("min", some ? s.min : 0);
    this.put("max", some ? s.max : 0);
    this.put("sum", some ? s.sum : 0);
    this.put("firstT", some ? s.firstT : Number.NaN);
    this.put("firstV", some ? s.firstV : 0);
    this.put("lastT", some ? s.lastT : Number.NaN);
    this.put("lastV", some ? s.lastV : 0);
    this.put("rs", s.rs);
    this.put("srcExp", b.srcExp);
    if (this.kind === KIND_COUNTER) {
      this.put("rn", s.rn);
      this.put("rmin", s.rn > 0 ? s.rmin : 0);
      this.put("rmax", s.rn > 0 ? s.rmax : 0);
      this.put("rsum", s.rsum);
      this.rateSketch!.add(s.rateSketch!);
    }
    this.sketch!.add(s.sketch!);
    this.n++;
  }

  availability(b: AvailBucket): void {
    const s = b.seg;
    const v: Record<string, number> = {
      idx: b.idx,
      samples: s.samples,
      firstT: s.firstT,
      firstV: s.firstV,
      lastT: s.lastT,
      lastV: s.lastV,
      dDown: s.dur[0]!,
      dUp: s.dur[1]!,
      dUnknown: s.dur[2]!,
      dAdmin: s.dur[3]!,
      dt016: s.dt016,
      downCnt: s.downCnt,
      notUpCnt: s.notUpCnt,
      lastDT: s.lastDT,
      lastNUT: s.lastNUT,
      srcExp: b.srcExp,
    };
    for (const c of AVAILABILITY_COLUMNS) this.put(c, v[c]!);
    this.n++;
  }

  finish(): Rows {
    const view = this.reusable;
    const out: Record<string, unknown> = { kind: this.kind, n: this.n };
    for (const c of this.names) out[c] = this.cols[c]!.out(view);
    if (this.sketch) out.sketch = this.sketch.finish(this.n, view);
    if (this.rateSketch) out.rateSketch = this.rateSketch.finish(this.n, view);
    return out as unknown as NumericRows | AvailabilityRows;
  }
}

/** Builders of blocks kept before this many in one use of a RollScratch are made afresh. */
const KEPT_BUILDERS = 8;

/**
 * The roller's memory reused from one series' step to the next: the builders of its blocks
 * (SeriesRoll) and the columns its stored blocks are decoded into (decodeRows). Everything
 * handed out is valid until the owner's next reset, when it is written again.
 */
export class RollScratch {
  private readonly builders: RowsBuilder[][] = [[], [], []];
  private readonly used = [0, 0, 0];
  readonly floats = new FloatArena();

  reset(): void {
    this.used.fill(0);
    this.floats.reset();
  }

  builder(kind: RollupKind): RowsBuilder {
    const list = this.builders[kind]!;
    const i = this.used[kind]!;
    if (i >= KEPT_BUILDERS) return new RowsBuilder(kind);
    this.used[kind] = i + 1;
    let b = list[i];
    if (b) b.reset();
    else list.push((b = new RowsBuilder(kind, true)));
    return b;
  }
}
