/**
 * Rounding of numeric values to a number of significant decimal digits (the collector's opt-in
 * --value-precision, docs/storage.md). The rounded value is the double nearest to an integer m
 * of at most `digits` digits divided by 10^k, which is exactly what the decimal value codec
 * (src/codec/decimal.ts) tests for, so such values are then stored as short integers.
 */
import type { DataPoint, MetricWrite } from "./model.ts";

export const MIN_VALUE_PRECISION = 1;
export const MAX_VALUE_PRECISION = 17;

// Powers of ten that are exact doubles (10^22 is the last one).
const POW10 = Array.from({ length: 23 }, (_, e) => 10 ** e);

/**
 * `v` rounded to `digits` (1–17) significant decimal digits, half away from zero. NaN, ±Infinity
 * and ±0 are returned unchanged (−0 keeps its sign). Idempotent.
 */
export function roundToSignificant(v: number, digits: number): number {
  if (v === 0 || !Number.isFinite(v)) return v;
  const a = Math.abs(v);
  // k: the power of ten that brings the leading digit to the `digits`-th place.
  let k = digits - 1 - Math.floor(Math.log10(a));
  // Fast path: one correctly rounded multiplication or division by an exact power of ten, an
  // integer m below 2^53, and m / 10^k correctly rounded: the double nearest to the decimal, the
  // same as Number(toPrecision) gives, in a third of its time. The scaling errs by at most half
  // an ulp of the scaled value, so it decides the rounding right unless the scaled value lies
  // within an ulp of a tie; those few go the exact way.
  if (digits <= 15 && k > -22 && k < 22) {
    let scaled = scale(a, k);
    // log10 can be off by one next to a power of ten: the scaled value tells.
    if (scaled >= POW10[digits]!) scaled = scale(a, --k);
    else if (scaled < POW10[digits - 1]!) scaled = scale(a, ++k);
    const m = Math.round(scaled);
    if (Math.abs(Math.abs(scaled - m) - 0.5) > scaled * 2 ** -51) {
      const r = k >= 0 ? m / POW10[k]! : m * POW10[-k]!;
      return v < 0 ? -r : r;
    }
  }
  // Extreme magnitudes, 16–17 digits and near-ties: the exact decimal rounding. A value next to
  // the largest double that would round up to Infinity stays as it is.
  const r = Number(v.toPrecision(digits));
  return Number.isFinite(r) ? r : v;
}

const scale = (a: number, k: number): number => (k >= 0 ? a * POW10[k]! : a / POW10[-k]!);

/**
 * The writes with their gauge and counter values rounded; availability and string points, and
 * every timestamp and tag, as they were. The arrays given are not changed.
 */
export function roundWrites(writes: MetricWrite[], digits: number): MetricWrite[] {
  return writes.map((w) => {
    if (w.type !== "gauge" && w.type !== "counter") return w;
    const points: DataPoint[] = w.points.map((p) => (typeof p.value === "number" ? { ...p, value: roundToSignificant(p.value, digits) } : p));
    return { ...w, points };
  });
}
