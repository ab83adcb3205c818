/**
 * The contiguous copies heads make of their points (head.ts: columns(), normalize(), moving a
 * stream's points into segments), shared by every head and reused: each call runs to completion
 * before the next, and what it leaves is valid until the next call of any head.
 */
export const scratch = { ts: new Float64Array(4096), nums: new Float64Array(4096) };

/** Makes the scratch columns hold at least `n` points. */
export function ensureScratch(n: number): void {
  if (scratch.ts.length >= n) return;
  const size = Math.max(n, scratch.ts.length * 2);
  scratch.ts = new Float64Array(size);
  scratch.nums = new Float64Array(size);
}

/** The sort order of normalize(). */
let order = new Uint32Array(4096);

/** A reused array of `n` indexes' room for normalize()'s sort order. */
export function orderScratch(n: number): Uint32Array {
  if (order.length < n) order = new Uint32Array(n * 2);
  return order.subarray(0, n);
}
