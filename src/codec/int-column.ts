import { pack, packedSize, packedZeros, unpack } from "./bit-pack.ts";
import { type ByteReader, type ByteWriter, zigzag } from "./bytes.ts";
import { corrupt } from "./errors.ts";

/**
 * A column of integers (timestamps, decimal mantissas, dictionary indices) as its differences
 * of order 0, 1 (deltas) or 2 (delta-of-delta), bit-packed, in whichever of these forms packs
 * smallest (each candidate is sized, only the best is written):
 * - order 2, zigzag: regular timestamps and steady counters (nearly free);
 * - order 1, zigzag: noisy gauges, counters with bursts;
 * - order 1 or 0 minus the column's minimum ("offset"): values in a band away from zero, such
 *   as the 10,000–10,012 ms steps of a timer that runs a few ms late (one bit less per value
 *   than zigzag delta-of-delta), or dictionary indices.
 * The values are divided by the greatest common divisor of the deltas first: byte counts move
 * in pages or sectors, CPU times in 10 ms ticks, which saves 3 to 12 bits per value there.
 *
 * Layout: form (1 byte: bits 0-1 order, bit 2 offset), the first `order` values as signed
 * varints (the first value, then the first delta), in offset form the minimum (signed
 * varint), the divisor (varint; 0 when all values are equal, read as 1), then the n − order
 * values ((x − minimum) / divisor, or zigzag(x / divisor)), bit-packed.
 */

/** Integers of a column must lie within ±2^50, so that their second differences stay exact in float64. */
export const INT_LIMIT = 2 ** 50;
const OFFSET = 4;

let diffs = new Float64Array(1024);
const sums = new Float64Array(2);
let packed = new Float64Array(1024);

function gcd(a: number, b: number): number {
  while (b !== 0) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/** Differences of order `k` of a[0..n) from index k on, into d[0..n−k). */
function differences(a: ArrayLike<number>, n: number, k: number, d: Float64Array): void {
  if (k === 0) for (let i = 0; i < n; i++) d[i] = a[i]!;
  else if (k === 1) for (let i = 1; i < n; i++) d[i - 1] = a[i]! - a[i - 1]!;
  else {
    let prev = a[1]! - a[0]!;
    for (let i = 2; i < n; i++) {
      const e = a[i]! - a[i - 1]!;
      d[i - 2] = e - prev;
      prev = e;
    }
  }
}

/**
 * The greatest common divisor of the deltas of a[0..n) (0 when all values are equal). Every
 * form's values are multiples of it: second differences and distances from the minimum are
 * sums of deltas. Cheap once it settles: one remainder per value, in integer arithmetic when
 * the numbers allow.
 */
function deltaGcd(a: ArrayLike<number>, n: number): number {
  let g = 0;
  for (let i = 1; i < n && g !== 1; i++) {
    const x = a[i]! - a[i - 1]!;
    if (x === 0) continue;
    if (g === 0) g = Math.abs(x);
    else if (((x | 0) === x && g <= 0x7fffffff ? (x | 0) % (g | 0) : x % g) !== 0) g = gcd(g, Math.abs(x));
  }
  return g;
}

/**
 * Maps d[0..m) to the unsigned values to pack, into t: (x − min) / g in offset form (returns
 * the minimum), else zigzag(x / g) (returns 0).
 */
function transform(d: Float64Array, m: number, offset: boolean, g: number, t: Float64Array): number {
  const div = g > 1 ? g : 1;
  if (!offset) {
    if (div > 1) for (let i = 0; i < m; i++) t[i] = zigzag(d[i]! / div);
    else for (let i = 0; i < m; i++) t[i] = zigzag(d[i]!);
    return 0;
  }
  let base = m > 0 ? d[0]! : 0;
  for (let i = 1; i < m; i++) if (d[i]! < base) base = d[i]!;
  if (div > 1) for (let i = 0; i < m; i++) t[i] = (d[i]! - base) / div;
  else for (let i = 0; i < m; i++) t[i] = d[i]! - base;
  return base;
}

function varintSize(x: number): number {
  let z = zigzag(x);
  let s = 1;
  while (z >= 128) {
    z = Math.floor(z / 128);
    s++;
  }
  return s;
}

function allZero(t: Float64Array, m: number): boolean {
  for (let i = 0; i < m; i++) if (t[i] !== 0) return false;
  return true;
}

/** The candidate forms: [order, offset]. */
const FORMS: readonly [number, boolean][] = [
  [2, false],
  [1, false],
  [1, true],
  [0, true],
];

/**
 * Encodes a[0..n), every value an integer within ±INT_LIMIT, in the smallest of the forms
 * whose order is at least `minOrder` (timestamps are never worth order 0).
 */
export function writeIntColumn(out: ByteWriter, a: ArrayLike<number>, n: number, minOrder = 0): void {
  if (diffs.length < n) {
    diffs = new Float64Array(Math.max(n, diffs.length * 2));
    packed = new Float64Array(diffs.length);
  }
  const g = deltaGcd(a, n);
  let best: [number, boolean] = [0, true];
  let bestSize = Number.POSITIVE_INFINITY;
  let settled = false;
  for (const form of FORMS) {
    const [k, offset] = form;
    if (k > n || k < minOrder) continue;
    differences(a, n, k, diffs);
    const base = transform(diffs, n - k, offset, g, packed);
    // Evenly spaced values (regular timestamps): second differences all zero, the smallest any
    // form can be (fewest values, no bits, no offset), so the others need not be tried (issue 28:
    // sealing spent half its time on timestamps).
    if (k === 2 && !offset && bestSize === Number.POSITIVE_INFINITY && allZero(packed, n - k)) {
      best = form;
      settled = true;
      break;
    }
    const size = packedSize(packed, n - k) + (offset ? varintSize(base) : 0);
    if (size < bestSize) {
      bestSize = size;
      best = form;
    }
  }
  const [k, offset] = best;
  if (!settled) differences(a, n, k, diffs);
  const base = settled ? 0 : transform(diffs, n - k, offset, g, packed);
  out.byte(k | (offset ? OFFSET : 0));
  if (k >= 1) out.varint(a[0]!);
  if (k === 2) out.varint(a[1]! - a[0]!);
  if (offset) out.varint(base);
  out.varuint(g);
  pack(packed, n - k, out);
}

/**
 * Decodes n integers written by writeIntColumn into out[0..n), each divided by `divisor` when
 * given (decimal values: done in the same pass as the sums).
 */
export function readIntColumn(r: ByteReader, n: number, out: Float64Array, divisor = 1): void {
  const form = r.byte();
  const k = form & 3;
  const offset = (form & OFFSET) !== 0;
  if (form & ~(3 | OFFSET) || k > 2 || k > n || (k === 2 && offset)) corrupt(`integer column form ${form}`);
  let v = k >= 1 ? r.varint() : 0;
  let d = k === 2 ? r.varint() : 0;
  const base = offset ? r.varint() : 0;
  const g = r.varuint() || 1;
  const p = divisor;
  if (k === 2 && packedZeros(r, n - k)) {
    constantSteps(out, n, v, d, p);
    return;
  }
  if (k === 2 && g === 1 && p === 1) {
    // The commonest form of counters' values: summed while unpacked.
    out[0] = v;
    if (n > 1) out[1] = v += d;
    sums[0] = v;
    sums[1] = d;
    unpack(r, n - k, out, k, true, sums);
    return;
  }
  unpack(r, n - k, out, k, !offset);
  // One pass: scale, sum up to the order, divide (separate loops: a division costs more than the rest).
  if (k === 0) {
    if (p !== 1) for (let i = 0; i < n; i++) out[i] = (base + out[i]! * g) / p;
    else if (g !== 1 || base !== 0) for (let i = 0; i < n; i++) out[i] = base + out[i]! * g;
  } else if (k === 1) {
    out[0] = v / p;
    if (p !== 1) for (let i = 1; i < n; i++) out[i] = (v += base + out[i]! * g) / p;
    else if (g !== 1 || base !== 0) for (let i = 1; i < n; i++) out[i] = v += base + out[i]! * g;
    else for (let i = 1; i < n; i++) out[i] = v += out[i]!;
  } else {
    out[0] = v / p;
    if (n > 1) out[1] = (v += d) / p;
    if (p !== 1) for (let i = 2; i < n; i++) out[i] = (v += d += out[i]! * g) / p;
    else if (g !== 1) for (let i = 2; i < n; i++) out[i] = v += d += out[i]! * g;
    else for (let i = 2; i < n; i++) out[i] = v += d += out[i]!;
  }
}

/**
 * readIntColumn's sums for second differences that are all zero (regular timestamps, values
 * growing by a constant), without unpacking zeros first: d + 0 × g is d, x / 1 is x (so no
 * division when p is 1), and d, v are integers, never −0.
 */
function constantSteps(out: Float64Array, n: number, v: number, d: number, p: number): void {
  out[0] = v / p;
  if (n > 1) out[1] = (v += d) / p;
  if (p !== 1) for (let i = 2; i < n; i++) out[i] = (v += d) / p;
  else for (let i = 2; i < n; i++) out[i] = v += d;
}
