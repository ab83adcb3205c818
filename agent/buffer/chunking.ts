import type { MetricWrite } from "../../src/metrics/model.ts";

/**
 * Splits writes into groups of at most `maxPoints` points, keeping each metric's points in
 * order, so that one chunk always fits in one batch.
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
      cur.push({ type: w.type, id: w.id, points: i === 0 && take === w.points.length ? w.points : w.points.slice(i, i + take) });
      i += take;
      room -= take;
    }
  }
  if (cur.length > 0) out.push({ writes: cur, points: maxPoints - room });
  return out;
}
