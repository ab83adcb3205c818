/**
 * Streaming percentile estimate with the P² algorithm (Jain & Chlamtac), reproducing the
 * results of the estimator upstream uses (commons-math PSquarePercentile) bit for bit:
 * - up to five observations, the estimate is the element at floor(q·(n−1)) of the sorted values;
 * - from the sixth on, five markers move; a marker's new height is the quadratic through it and
 *   its neighbours (evaluated by Neville's scheme, in the same operation order), or the linear
 *   one when the quadratic leaves the neighbours' heights;
 * - q = 0 and q = 1 report the minimum and maximum.
 * The estimate therefore depends on the insertion order. Markers live in scalar fields, so an
 * observation costs a few comparisons and no allocation.
 */
export class PSquare {
  /** The quantile as a fraction, p/100. */
  readonly quantile: number;
  private count = 0;
  /** The first five observations. */
  private readonly first = new Float64Array(5);
  // Marker heights (h), positions (n) and desired positions (d). Markers 1 and 5 are never
  // interpolated (h1/h5 are the minimum and maximum), so their desired positions are not kept.
  private h1 = 0;
  private h2 = 0;
  private h3 = 0;
  private h4 = 0;
  private h5 = 0;
  private n1 = 0;
  private n2 = 0;
  private n3 = 0;
  private n4 = 0;
  private n5 = 0;
  private d2 = 0;
  private d3 = 0;
  private d4 = 0;
  private readonly inc2: number;
  private readonly inc3: number;
  private readonly inc4: number;

  /** @param p the percentile, 0 to 100 (callers validate; see parsePercentiles). */
  constructor(p: number) {
    this.quantile = p / 100;
    this.inc2 = this.quantile / 2;
    this.inc3 = this.quantile;
    this.inc4 = (1 + this.quantile) / 2;
  }

  get n(): number {
    return this.count;
  }

  add(x: number): void {
    const c = this.count++;
    if (c < 5) {
      this.first[c] = x;
      return;
    }
    if (c === 5) this.initMarkers();
    this.step(x);
  }

  result(): number {
    const q = this.quantile;
    const c = this.count;
    if (c === 0) return Number.NaN;
    if (c <= 5) {
      // Typed-array sort orders -0 before 0 and NaN last, like Java's Double ordering.
      const sorted = this.first.slice(0, c).sort();
      if (q === 1) return sorted[c - 1]!;
      if (Object.is(q, 0)) return sorted[0]!;
      return sorted[Math.trunc(q * (c - 1))]!;
    }
    if (q === 1) return this.h5;
    if (Object.is(q, 0)) return this.h1;
    return this.h3;
  }

  reset(): void {
    this.count = 0;
  }

  private initMarkers(): void {
    const s = this.first.slice().sort();
    const q = this.quantile;
    this.h1 = s[0]!;
    this.h2 = s[1]!;
    this.h3 = s[2]!;
    this.h4 = s[3]!;
    this.h5 = s[4]!;
    this.n1 = 1;
    this.n2 = 2;
    this.n3 = 3;
    this.n4 = 4;
    this.n5 = 5;
    this.d2 = 1 + 2 * q;
    this.d3 = 1 + 4 * q;
    this.d4 = 3 + 2 * q;
  }

  private step(x: number): void {
    // Find the cell, widening the extremes; the positions of the markers above it move up.
    if (x < this.h1) {
      this.h1 = x;
      this.n2++;
      this.n3++;
      this.n4++;
    } else if (x < this.h2) {
      this.n2++;
      this.n3++;
      this.n4++;
    } else if (x < this.h3) {
      this.n3++;
      this.n4++;
    } else if (x < this.h4) {
      this.n4++;
    } else if (!(x <= this.h5)) {
      this.h5 = x;
    }
    this.n5++;
    this.d2 += this.inc2;
    this.d3 += this.inc3;
    this.d4 += this.inc4;

    // Adjust the middle markers in order; each uses its neighbours' updated state.
    let di = this.d2 - this.n2;
    if ((di >= 1 && this.n3 - this.n2 > 1) || (di <= -1 && this.n1 - this.n2 < -1)) {
      const s = di >= 0 ? 1 : -1;
      this.h2 = interpolate(this.n1, this.n2, this.n3, this.h1, this.h2, this.h3, s);
      this.n2 += s;
    }
    di = this.d3 - this.n3;
    if ((di >= 1 && this.n4 - this.n3 > 1) || (di <= -1 && this.n2 - this.n3 < -1)) {
      const s = di >= 0 ? 1 : -1;
      this.h3 = interpolate(this.n2, this.n3, this.n4, this.h2, this.h3, this.h4, s);
      this.n3 += s;
    }
    di = this.d4 - this.n4;
    if ((di >= 1 && this.n5 - this.n4 > 1) || (di <= -1 && this.n3 - this.n4 < -1)) {
      const s = di >= 0 ? 1 : -1;
      this.h4 = interpolate(this.n3, this.n4, this.n5, this.h3, this.h4, this.h5, s);
      this.n4 += s;
    }
  }
}

/**
 * New height of the middle marker (x1, y1) moved by s (±1): the quadratic through the three
 * markers, evaluated with Neville's scheme exactly as commons-math orders the operations (start
 * from the nearest abscissa, then add correction terms), or the straight line towards the
 * neighbour in the direction of the move when the quadratic leaves (y0, y2).
 */
function interpolate(x0: number, x1: number, x2: number, y0: number, y1: number, y2: number, s: number): number {
  const z = x1 + s;
  // The first strictly nearest abscissa.
  const e0 = Math.abs(z - x0);
  const e1 = Math.abs(z - x1);
  const e2 = Math.abs(z - x2);
  let nearest = 0;
  let best = e0;
  if (e1 < best) {
    nearest = 1;
    best = e1;
  }
  if (e2 < best) nearest = 2;

  let value = nearest === 0 ? y0 : nearest === 1 ? y1 : y2;
  // Column 1 of the tableau: c0, c1 (upward terms) and d0, d1 (downward terms).
  let w = (y1 - y0) / (x0 - x1);
  const c0 = (x0 - z) * w;
  const d0 = (x1 - z) * w;
  w = (y2 - y1) / (x1 - x2);
  const c1 = (x1 - z) * w;
  const d1 = (x2 - z) * w;
  if (nearest < 1.5) {
    value += nearest === 0 ? c0 : c1;
  } else {
    nearest = 1;
    value += d1;
  }
  // Column 2: one more pair of terms.
  w = (c1 - d0) / (x0 - x2);
  value += nearest < 1 ? (x0 - z) * w : (x2 - z) * w;

  if (value <= y0 || value >= y2) {
    // Line through the marker and its neighbour on the side of the move, evaluated as
    // slope·(z − left) + left height, the form of a one-piece linear spline.
    if (s > 0) return (z - x1) * ((y2 - y1) / (x2 - x1)) + y1;
    return (z - x0) * ((y1 - y0) / (x1 - x0)) + y0;
  }
  return value;
}
