import type { MetricWrite } from "../metrics/model.ts";

/**
 * How far a point's timestamp may be from the receiving clock before it is flagged. Points
 * outside are still stored (a backfill is legitimate); they are counted and logged, because
 * a skewed clock otherwise makes data silently wrong or invisible to alerting.
 */
export interface ClockWindow {
  pastMs: number;
  futureMs: number;
}

export const DEFAULT_CLOCK_WINDOW: ClockWindow = { pastMs: 24 * 3_600_000, futureMs: 5 * 60_000 };

export interface OutsideWindow {
  count: number;
  /** The first offending point, for the log line. */
  example?: { id: string; timestamp: number };
}

export function pointsOutsideWindow(writes: MetricWrite[], now: number, w: ClockWindow): OutsideWindow {
  const lo = now - w.pastMs;
  const hi = now + w.futureMs;
  let count = 0;
  let example: OutsideWindow["example"];
  for (const m of writes) {
    for (const p of m.points) {
      if (p.timestamp < lo || p.timestamp > hi) {
        count++;
        example ??= { id: m.id, timestamp: p.timestamp };
      }
    }
  }
  return { count, example };
}

/** The same for points in columns: `ts` holds the points of entry k (`counts[k]` of them) in entry order. */
export function columnsOutsideWindow(ids: readonly string[], counts: Uint32Array, ts: Float64Array, now: number, w: ClockWindow): OutsideWindow {
  const lo = now - w.pastMs;
  const hi = now + w.futureMs;
  let count = 0;
  let example: OutsideWindow["example"];
  let o = 0;
  for (let k = 0; k < ids.length; k++) {
    for (const end = o + counts[k]!; o < end; o++) {
      const t = ts[o]!;
      if (t < lo || t > hi) {
        count++;
        example ??= { id: ids[k]!, timestamp: t };
      }
    }
  }
  return { count, example };
}
