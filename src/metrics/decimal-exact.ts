/**
 * Decimal numbers of 16 or 17 significant digits with a fraction (`0.12345678901234567`,
 * `12.345678901234567`: a float64 printed in full) read to the nearest double, as JSON.parse
 * reads them, without a string (issue 28: the JSON ingest worker gathered them as text for one
 * JSON.parse per body, a tenth of the collector's page faults under the peers benchmark).
 *
 * Clinger's fast path needs the digits to be an exact double (15 digits). Here the digits W are
 * held exactly as two doubles, divided by 10^k (exact up to k = 22), and the remainder of that
 * division computed exactly (Dekker's product: JavaScript has no fused multiply-add) corrects
 * the quotient. The result is returned only when it is certainly the nearest double, the exact
 * quotient lying well inside its rounding interval; otherwise (exact ties, which only large
 * values with few decimals can be, and near-ties: fewer than one double printed in full in
 * 10,000) NaN, and the caller reads the text as before.
 */

const SPLIT = 134_217_729; // 2^27 + 1
/** Exact powers of ten: a mantissa under 2^53 times or over one of them is rounded once, correctly. */
export const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/** The rounding error of the last `product` (a·b = product + productError exactly). */
let productError = 0;

function product(a: number, b: number): number {
  const p = a * b;
  let c = SPLIT * a;
  const ah = c - (c - a);
  const al = a - ah;
  c = SPLIT * b;
  const bh = c - (c - b);
  const bl = b - bh;
  productError = ah * bh - p + ah * bl + al * bh + al * bl;
  return p;
}

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
const one = new Float64Array(1);
const oneWords = new Uint32Array(one.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const HI = LITTLE ? 1 : 0;
const LO = LITTLE ? 0 : 1;

/**
 * (hi · 10^loDigits + lo) / 10^k rounded to the nearest double, or NaN when that cannot be told
 * for certain here. `hi` holds the first 9 digits (100,000,000 ≤ hi < 10^9), `lo` the next
 * `loDigits` (7 or 8) digits, and 1 ≤ k ≤ 22.
 */
export function quotientOfDigits(hi: number, loDigits: number, lo: number, k: number): number {
  // W = p + productError + lo exactly; the last two are small integers, so their sum is exact.
  const p = product(hi, POW10[loDigits]!);
  const t = productError + lo;
  const wh = p + t;
  const wl = t - (wh - p); // exact: |p| ≥ |t|
  const d = POW10[k]!;
  const q = wh / d;
  const qd = product(q, d);
  // W − q·d exactly but for rounding in three additions of numbers under about 64: wh − qd is
  // exact (they are within a factor of two), so r is good to about 10^-14.
  const r = wh - qd - productError + wl;
  const c = r / d;
  const y = q + c;
  const off = q - y + c; // the exact quotient − y, to within about 10^-13 of y's spacing
  bits[0] = y;
  const exp = (words[HI]! >>> 20) & 0x7ff;
  // A power of two has a closer neighbour below: left to the caller, as is anything not normal.
  if (exp <= 53 || exp === 0x7ff || ((words[HI]! & 0xfffff) === 0 && words[LO]! === 0)) return Number.NaN;
  // Half the spacing of doubles at y: 2^(exp − 1075 − 1), built from its bits.
  oneWords[HI] = (exp - 53) << 20;
  oneWords[LO] = 0;
  const half = one[0]!;
  return Math.abs(off) < half * (1 - 1e-9) ? y : Number.NaN;
}
