/**
 * A mergeable quantile sketch with a relative error bound, in the manner of DDSketch (Masson,
 * Rim, Lee: "DDSketch: a fast and fully-mergeable quantile sketch with relative-error
 * guarantees", VLDB 2019): a value v > 0 falls in the bin k = ⌈log_γ v⌉, γ = (1 + α)/(1 − α),
 * i.e. in (γ^(k−1), γ^k], and a bin answers 2γ^k/(γ + 1), which is within α of every value of
 * the bin (relative; for normal doubles, |v| ≥ 2.2e-308: subnormals are too sparse for it). Negative values have bins of their own (by |v|), zeros and infinities a
 * count each. Two sketches merge by adding their bins' counts, exactly: the sketch of the union
 * of two sets is the merge of their sketches, whatever the order. Rollup buckets keep one per
 * bucket (docs/storage.md, "Rollup tiers").
 *
 * The value at rank r of the n values sorted ascending is estimated within α of the true value
 * at that rank (plus float rounding of the logarithm: a value within 1e-15 of a bin's edge may
 * land in its neighbour, which is still within α·(1 + 1e-12)); estimates are also clamped to the
 * [min, max] the caller knows exactly. quantile() interpolates between the two ranks around
 * q·(n − 1), as Prometheus' quantile does: both ends within α, so is the interpolation when they
 * have the same sign.
 */

/** The relative accuracy α of every sketch: 1 %. */
export const SKETCH_RELATIVE_ACCURACY = 0.01;
const GAMMA = (1 + SKETCH_RELATIVE_ACCURACY) / (1 - SKETCH_RELATIVE_ACCURACY);
const LN_GAMMA = Math.log(GAMMA);
/** ln(2/(γ + 1)), added to the exponent: 2γ^k overflows for bins near the largest doubles. */
const LN_BIN_ANSWER = Math.log(2 / (GAMMA + 1));

/** The bin of a finite v > 0 (subnormals included: about −37,000 … 35,500). */
export function sketchKey(v: number): number {
  return Math.ceil(Math.log(v) / LN_GAMMA);
}

/** What bin k answers: within α of every value in it (kept within the finite doubles). */
export function keyValue(k: number): number {
  const v = Math.exp(k * LN_GAMMA + LN_BIN_ANSWER);
  return v > Number.MAX_VALUE ? Number.MAX_VALUE : v < Number.MIN_VALUE ? Number.MIN_VALUE : v;
}

/** Counts of a run of consecutive bins, grown at either end as keys arrive. */
class DenseBins {
  counts = new Float64Array(0);
  /** Key of counts[0]. */
  offset = 0;
  /** Keys present: [lo, hi] (empty when hi < lo). */
  lo = 0;
  hi = -1;

  clear(): void {
    if (this.hi >= this.lo) this.counts.fill(0, this.lo - this.offset, this.hi - this.offset + 1);
    this.hi = this.lo - 1;
  }

  get empty(): boolean {
    return this.hi < this.lo;
  }

  add(k: number, c: number): void {
    if (this.hi < this.lo) {
      if (this.counts.length === 0) this.counts = new Float64Array(64);
      // Centred, so that neighbours on both sides fit without moving.
      if (k - this.offset < 0 || k - this.offset >= this.counts.length) this.offset = k - (this.counts.length >> 1);
      this.lo = this.hi = k;
    } else if (k < this.lo) {
      this.lo = k;
      if (k < this.offset) this.grow(k, this.hi);
    } else if (k > this.hi) {
      this.hi = k;
      if (k - this.offset >= this.counts.length) this.grow(this.lo, k);
    }
    this.counts[k - this.offset]! += c;
  }

  private grow(lo: number, hi: number): void {
    const span = hi - lo + 1;
    let size = this.counts.length;
    while (size < span * 2) size *= 2;
    const next = new Float64Array(size);
    const offset = lo - ((size - span) >> 1);
    // The old array's keys within [lo, hi] (those outside hold zeros).
    const oldLo = Math.max(this.offset, lo);
    const oldHi = Math.min(this.offset + this.counts.length - 1, hi);
    for (let k = oldLo; k <= oldHi; k++) next[k - offset] = this.counts[k - this.offset]!;
    this.counts = next;
    this.offset = offset;
  }
}

/**
 * A sketch being built or merged. Every method adds; nothing is ever taken out. Reused across
 * buckets with clear() (its arrays are kept).
 */
export class QuantileSketch {
  readonly pos = new DenseBins();
  readonly neg = new DenseBins();
  zero = 0;
  posInf = 0;
  negInf = 0;
  count = 0;

  clear(): void {
    this.pos.clear();
    this.neg.clear();
    this.zero = this.posInf = this.negInf = this.count = 0;
  }

  /** Adds a value `c` times; NaN is not a value and is ignored. */
  add(v: number, c = 1): void {
    if (v > 0) {
      if (v === Number.POSITIVE_INFINITY) this.posInf += c;
      else this.pos.add(sketchKey(v), c);
    } else if (v < 0) {
      if (v === Number.NEGATIVE_INFINITY) this.negInf += c;
      else this.neg.add(sketchKey(-v), c);
    } else if (v === 0) this.zero += c;
    else return;
    this.count += c;
  }

  /** Adds a bin of positive (sign 1) or negative (sign −1) values. */
  addBin(sign: number, key: number, c: number): void {
    (sign > 0 ? this.pos : this.neg).add(key, c);
    this.count += c;
  }

  addSpecial(zero: number, posInf: number, negInf: number): void {
    this.zero += zero;
    this.posInf += posInf;
    this.negInf += negInf;
    this.count += zero + posInf + negInf;
  }

  merge(o: QuantileSketch): void {
    for (let k = o.pos.lo; k <= o.pos.hi; k++) {
      const c = o.pos.counts[k - o.pos.offset]!;
      if (c > 0) this.pos.add(k, c);
    }
    for (let k = o.neg.lo; k <= o.neg.hi; k++) {
      const c = o.neg.counts[k - o.neg.offset]!;
      if (c > 0) this.neg.add(k, c);
    }
    this.addSpecial(o.zero, o.posInf, o.negInf);
    this.count += o.count - o.zero - o.posInf - o.negInf;
  }

  /**
   * An estimate of the value at 0-based rank r (0 ≤ r < count) of the values sorted ascending,
   * clamped to [min, max].
   */
  valueAt(r: number, min: number, max: number): number {
    let seen = this.negInf;
    if (r < seen) return clamp(Number.NEGATIVE_INFINITY, min, max);
    const neg = this.neg;
    // Negative values ascending: largest |v| first.
    for (let k = neg.hi; k >= neg.lo; k--) {
      seen += neg.counts[k - neg.offset]!;
      if (r < seen) return clamp(-keyValue(k), min, max);
    }
    seen += this.zero;
    if (r < seen) return clamp(0, min, max);
    const pos = this.pos;
    for (let k = pos.lo; k <= pos.hi; k++) {
      seen += pos.counts[k - pos.offset]!;
      if (r < seen) return clamp(keyValue(k), min, max);
    }
    return clamp(Number.POSITIVE_INFINITY, min, max);
  }

  /**
   * The q-quantile (0 ≤ q ≤ 1) as Prometheus' quantile defines it over the values (rank
   * q·(n − 1), interpolated between its neighbours), within α; NaN when empty.
   */
  quantile(q: number, min: number, max: number): number {
    const n = this.count;
    if (n === 0 || Number.isNaN(q)) return Number.NaN;
    if (q < 0) return Number.NEGATIVE_INFINITY;
    if (q > 1) return Number.POSITIVE_INFINITY;
    const rank = q * (n - 1);
    const lower = Math.max(0, Math.floor(rank));
    const upper = Math.min(n - 1, lower + 1);
    const weight = rank - Math.floor(rank);
    const a = this.valueAt(lower, min, max);
    if (weight === 0) return a;
    return a * (1 - weight) + this.valueAt(upper, min, max) * weight;
  }
}

function clamp(v: number, min: number, max: number): number {
  return v < min ? min : v > max ? max : v;
}
