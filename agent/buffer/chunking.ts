import type { MetricWrite } from "../../src/metrics/model.ts";

/**
 * Splits writes into groups of at most `maxPoints` points, keeping each metric's points in
 * order, so that one chunk always fits in one batch. A write that fits whole is the caller's
 * object as it is (no copy: a scrape's 10,000 writes made 10,000 more objects); one split
 * across chunks is copied with its share of the points. The encoder writes only `type`, `id`
 * and `points` (data-encode.ts, encodeChunk).
 */
export function splitIntoChunks(writes: MetricWrite[], maxPoints: number): { writes: MetricWrite[]; points: number }[] {
  const out: { writes: MetricWrite[]; points: number }[] = [];
  let cur: MetricWrite[] = [];
  let room = maxPoints;
  for (const w of writes) {
    let i = 0;
    while (i < w.points.length) {
      if (room === 0) {
        out.push({ writes: cur, points: maxPoints });
        cur = [];
        room = maxPoints;
      }
      const take = Math.min(room, w.points.length - i);
      cur.push(i === 0 && take === w.points.length ? w : { type: w.type, id: w.id, points: w.points.slice(i, i + take) });
      i += take;
      room -= take;
    }
  }
  if (cur.length > 0) out.push({ writes: cur, points: maxPoints - room });
  return out;
}
