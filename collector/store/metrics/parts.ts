import { decodePointsInto } from "../../../src/codec/index.ts";
import type { ReadBuffers } from "../../../src/promql/values.ts";
import type { SeriesParts } from "../../../src/metrics/reader.ts";
import { mergeRuns, sliceRun } from "../../../src/metrics/run.ts";

export type { SeriesParts };

/**
 * The points of `p`, ascending, as the store's own read returns them (the latest write of a
 * timestamp wins), decoded into one buffer (from `buffers` when given, as sqlite/chunks.ts does).
 * Throws on a block that does not decode or holds other than n numbers.
 */
export function partsColumns(p: SeriesParts, buffers?: ReadBuffers): { ts: Float64Array; nums: Float64Array } {
  let room = 0;
  for (const piece of p.pieces) room += "block" in piece ? piece.n : piece.ts.length;
  const both = buffers && room > 0 ? buffers.take(room * 2) : new Float64Array(room * 2);
  const ts = both.subarray(0, room);
  const nums = both.subarray(room, room * 2);
  const starts: number[] = [];
  let sorted = true;
  let at = 0;
  for (const piece of p.pieces) {
    let n: number;
    if ("block" in piece) {
      n = decodePointsInto(piece.block, ts, nums, at).points;
      if (n !== piece.n) throw new Error(`a chunk holds ${n} points, the index says ${piece.n}`);
    } else {
      n = piece.ts.length;
      ts.set(piece.ts, at);
      nums.set(piece.nums, at);
    }
    if (at > 0 && n > 0 && ts[at]! <= ts[at - 1]!) sorted = false;
    starts.push(at);
    at += n;
  }
  if (sorted) {
    const r = sliceRun({ ts, nums }, p.start, p.end);
    return { ts: r.ts, nums: r.nums! };
  }
  // Overlapping pieces (rewritten timestamps): merged as the store's read merges them.
  const runs = starts.map((a, k) => {
    const b = k + 1 < starts.length ? starts[k + 1]! : at;
    return sliceRun({ ts: ts.subarray(a, b), nums: nums.subarray(a, b) }, p.start, p.end);
  });
  const r = mergeRuns(runs, true);
  return { ts: r.ts, nums: r.nums! };
}
