import type { Order } from "./series.ts";

/**
 * Estimates the p-th percentile (0–100) of values[from..to), fed one at a time in `order`, with
 * the P² algorithm (Jain & Chlamtac), reproducing bit for bit the estimator upstream uses
 * (commons-math PSquarePercentile):
 * - up to five observations, the estimate is the element at floor(q·(n−1)) of the sorted values;
 * - from the sixth on, five markers move; a marker's new height is the quadratic through it and
 *   its neighbours (evaluated in Neville's scheme, in the same operation order), or the straight
 *   line towards the neighbour on the side of the move when the quadratic leaves their heights;
 * - q = 0 and q = 1 report the minimum and maximum.
 * The estimate therefore depends on the feed order. NaN for an empty range.
 *
 * It is a batch function over a range, with the markers in local variables, because that is
 * what the stats need and it runs about twice as fast as an object holding the same state.
 */
export function psquarePercentile(
  values: ArrayLike<number>,
  p: number,
  from = 0,
  to: number = values.length,
  order: Order = "asc",
): number {
  const count = to - from;
  if (count <= 0) return Number.NaN;
  const q = p / 100;
  const isMax = q === 1;
  // Upstream compares with Double.compare, for which −0 is not 0.
  const isMin = Object.is(q, 0);
  const dir = order === "asc" ? 1 : -1;
  let i = order === "asc" ? from : to - 1;

  // Typed-array sort puts −0 before 0 and NaN last, as Java's Double ordering does.
  const first = new Float64Array(Math.min(count, 5));
  for (let k = 0; k < first.length; k++, i += dir) first[k] = values[i]!;
  first.sort();
  if (count <= 5) {
    if (isMax) return first[count - 1]!;
    if (isMin) return first[0]!;
    return first[Math.trunc(q * (count - 1))]!;
  }

  // Marker heights h, positions n and desired positions d. Markers 1 and 5 are never
  // interpolated (h1, h5 are the minimum and maximum), so their desired positions are not kept.
  let h1 = first[0]!;
  let h2 = first[1]!;
  let h3 = first[2]!;
  let h4 = first[3]!;
  let h5 = first[4]!;
  const n1 = 1;
  let n2 = 2;
  let n3 = 3;
  let n4 = 4;
  let n5 = 5;
  let d2 = 1 + 2 * q;
  let d3 = 1 + 4 * q;
  let d4 = 3 + 2 * q;
  const inc2 = q / 2;
  const inc3 = q;
  const inc4 = (1 + q) / 2;

  for (let k = 5; k < count; k++, i += dir) {
    const x = values[i]!;
    // Find the cell, widening the extremes; markers above the cell move up one position.
    if (x < h1) {
      h1 = x;
      n2++;
      n3++;
      n4++;
    } else if (x < h2) {
      n2++;
      n3++;
      n4++;
    } else if (x < h3) {
      n3++;
      n4++;
    } else if (x < h4) {
      n4++;
    } else if (!(x <= h5)) {
      h5 = x;
    }
    n5++;
    d2 += inc2;
    d3 += inc3;
    d4 += inc4;

    // Adjust the middle markers in order; each sees its neighbours' updated state.
    let di = d2 - n2;
    if ((di >= 1 && n3 - n2 > 1) || (di <= -1 && n1 - n2 < -1)) {
      const s = di >= 0 ? 1 : -1;
      h2 = moveMarker(n1, n2, n3, h1, h2, h3, s);
      n2 += s;
    }
    di = d3 - n3;
    if ((di >= 1 && n4 - n3 > 1) || (di <= -1 && n2 - n3 < -1)) {
      const s = di >= 0 ? 1 : -1;
      h3 = moveMarker(n2, n3, n4, h2, h3, h4, s);
      n3 += s;
    }
    di = d4 - n4;
    if ((di >= 1 && n5 - n4 > 1) || (di <= -1 && n3 - n4 < -1)) {
      const s = di >= 0 ? 1 : -1;
      h4 = moveMarker(n3, n4, n5, h3, h4, h5, s);
      n4 += s;
    }
  }
  if (isMax) return h5;
  if (isMin) return h1;
  return h3;
}

/**
 * New height of the middle marker (x1, y1) when it moves by s = ±1 to z = x1 + s.
 *
 * The quadratic through the three markers is evaluated with Neville's scheme in commons-math's
 * operation order: start from the tabulated value nearest to z, then add one correction term
 * per tableau column. The caller only moves a marker towards a neighbour at least two
 * positions away, so the nearest point is the marker itself, except when moving down to one
 * position above its lower neighbour: then that neighbour is as near and, found first, is used.
 * Kept small so that the JIT inlines it; the rare linear case is a separate function.
 */
function moveMarker(x0: number, x1: number, x2: number, y0: number, y1: number, y2: number, s: number): number {
  const z = x1 + s;
  const w1 = (y1 - y0) / (x0 - x1);
  const w2 = (y2 - y1) / (x1 - x2);
  const c1 = (x1 - z) * w2;
  const w3 = (c1 - (x1 - z) * w1) / (x0 - x2);
  const v = s < 0 && x1 - x0 === 2 ? y0 + (x0 - z) * w1 + (x0 - z) * w3 : y1 + c1 + (x2 - z) * w3;
  return v <= y0 || v >= y2 ? moveLinearly(x0, x1, x2, y0, y1, y2, z) : v;
}

/**
 * The straight line through the marker and its neighbour on the side of the move, evaluated as
 * slope·(z − left abscissa) + left height, the form of commons-math's one-piece linear spline.
 */
function moveLinearly(x0: number, x1: number, x2: number, y0: number, y1: number, y2: number, z: number): number {
  return z > x1 ? (z - x1) * ((y2 - y1) / (x2 - x1)) + y1 : (z - x0) * ((y1 - y0) / (x1 - x0)) + y0;
}
