import { DAY_MS } from "../../../src/metrics/model.ts";
import { lowerBound } from "../../../src/metrics/series.ts";

/**
 * How sorted points are cut into sealed chunks, [from, to) index pairs: one chunk per UTC day
 * window, so a chunk's span is bounded for range lookups, and of chunkPoints to
 * 2 × chunkPoints − 1 points (fewer only when there are fewer), so a read decodes little more
 * than it needs and a huge write still fits in blocks. Shared by both backends.
 */
export function chunkPieces(ts: Float64Array, chunkPoints: number): [number, number][] {
  const out: [number, number][] = [];
  let i = 0;
  while (i < ts.length) {
    const windowEnd = (Math.floor(ts[i]! / DAY_MS) + 1) * DAY_MS;
    // At least one point per step: a timestamp that is not a number (which ingest validation
    // keeps out) then fails the insert, logged and retried, instead of looping for ever.
    const j = Math.max(i + 1, lowerBound(ts, windowEnd, i));
    const pieces = Math.max(1, Math.floor((j - i) / chunkPoints));
    const size = Math.ceil((j - i) / pieces);
    for (let a = i; a < j; a += size) out.push([a, Math.min(j, a + size)]);
    i = j;
  }
  return out;
}
