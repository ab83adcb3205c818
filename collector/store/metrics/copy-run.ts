/** Runs shorter than this are copied by a loop: two views and a copy cost more for them. */
const COPY_LOOP = 64;

/** Copies `n` values of `src` from `from` into `dst` at `to` (a head's segments, the shared scratch, a request's columns). */
export function copyRun(dst: Float64Array, to: number, src: Float64Array, from: number, n: number): void {
  if (n < COPY_LOOP) for (let j = 0; j < n; j++) dst[to + j] = src[from + j]!;
  else dst.set(src.subarray(from, from + n), to);
}
