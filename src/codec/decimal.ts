import type { ByteReader, ByteWriter } from "./bytes.ts";
import { corrupt } from "./errors.ts";
import { INT_LIMIT, readIntColumn, writeIntColumn } from "./int-column.ts";

/**
 * Values that are exact short decimals (counters, byte counts, load averages, most gauges) as
 * integers m with value = m / 10^e for one exponent e per block; the integers then go through
 * the integer column. A value is taken only when that division gives back its float64 bit for
 * bit, so the scheme is lossless. Values that do not fit (NaN, ±Infinity, −0, a long fraction)
 * are kept aside as raw float64 exceptions, as long as they are few.
 *
 * Layout: e (1 byte), exception count (varint), per exception its index delta (varint) and
 * its 8 bytes, then the integer column (an exception's slot repeats the previous integer).
 */

export const MAX_EXPONENT = 15;
const POW10 = Array.from({ length: MAX_EXPONENT + 1 }, (_, e) => 10 ** e);

let ints = new Float64Array(1024);
let exceptions = new Int32Array(64);

/** The analysis of a block's values: its exponent and how many exceptions it has (their indices and the mantissas stay in scratch buffers). */
export interface DecimalPlan {
  e: number;
  count: number;
}

const fits = (v: number, p: number): boolean => {
  const m = Math.round(v * p);
  return m / p === v && m <= INT_LIMIT && m >= -INT_LIMIT;
};

/**
 * Finds the smallest exponent that makes every value but at most `maxExceptions` an exact
 * decimal, or undefined when there is none. The mantissas and exception indices are left in
 * scratch buffers for writeDecimal, which must be called next.
 */
export function planDecimal(v: Float64Array, n: number, maxExceptions: number): DecimalPlan | undefined {
  if (ints.length < n) ints = new Float64Array(Math.max(n, ints.length * 2));
  let e = 0;
  let p = 1;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    if (fits(x, p) && (x !== 0 || 1 / x > 0)) continue;
    let f = e + 1;
    if (Number.isFinite(x) && (x !== 0 || 1 / x > 0)) while (f <= MAX_EXPONENT && !fits(x, POW10[f]!)) f++;
    else f = MAX_EXPONENT + 1;
    if (f > MAX_EXPONENT) {
      if (++count > maxExceptions) return undefined;
    } else {
      e = f;
      p = POW10[f]!;
    }
  }
  // With the final exponent: mantissas, and the exceptions in index order.
  count = 0;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    const m = Math.round(x * p);
    if (m / p === x && m <= INT_LIMIT && m >= -INT_LIMIT && (x !== 0 || 1 / x > 0)) ints[i] = prev = m;
    else {
      if (count >= maxExceptions) return undefined;
      if (count === exceptions.length) {
        const grown = new Int32Array(count * 2);
        grown.set(exceptions);
        exceptions = grown;
      }
      exceptions[count++] = i;
      ints[i] = prev;
    }
  }
  return { e, count };
}

/** Writes the values planned by the last planDecimal call. */
export function writeDecimal(out: ByteWriter, v: Float64Array, n: number, plan: DecimalPlan): void {
  out.byte(plan.e);
  out.varuint(plan.count);
  let last = 0;
  // Exceptions are copied as bytes: a float64 read into a number loses its NaN payload.
  const bytes = new Uint8Array(v.buffer, v.byteOffset, n * 8);
  for (let k = 0; k < plan.count; k++) {
    const i = exceptions[k]!;
    out.varuint(i - last);
    last = i;
    out.bytes(bytes.subarray(i * 8, i * 8 + 8));
  }
  writeIntColumn(out, ints, n);
}

export function readDecimal(r: ByteReader, n: number, out: Float64Array): void {
  const e = r.byte();
  if (e > MAX_EXPONENT) corrupt(`decimal exponent ${e}`);
  const count = r.count(9);
  // Most blocks have no exceptions: then no arrays (measured 9 % of decoding the blocks of
  // bench/promql-micro.ts, as typed arrays are costly to make and their .buffer more so).
  if (count === 0) {
    readIntColumn(r, n, out, POW10[e]!);
    return;
  }
  const idx = new Int32Array(count);
  const rawBytes = new Uint8Array(count * 8);
  let at = 0;
  for (let k = 0; k < count; k++) {
    at += r.varuint();
    if (at >= n || (k > 0 && at === idx[k - 1])) corrupt("exception index out of range");
    idx[k] = at;
    rawBytes.set(r.take(8), k * 8);
  }
  readIntColumn(r, n, out, POW10[e]!);
  // As bytes, as they were written (NaN payloads kept).
  const outBytes = new Uint8Array(out.buffer, out.byteOffset, n * 8);
  for (let k = 0; k < count; k++) outBytes.set(rawBytes.subarray(k * 8, k * 8 + 8), idx[k]! * 8);
}
