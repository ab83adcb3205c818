import type { AvailabilityStats } from "../bucket-points.ts";
import { availabilityStats } from "../availability-stats.ts";
import type { AvailSeg } from "./segment.ts";

const DOWN = 0;
const UP = 1;

/**
 * The stats of availability bucket [start, end) from the segment of its points, with the same
 * results as availabilityBucketStats over those points (availability-stats.ts): the time before
 * the first point counts for its state, the time after the last for the last point's state.
 * The segment must hold at least one point.
 */
export function availabilityFromSegment(s: AvailSeg, start: number, end: number): AvailabilityStats {
  const durations = [...s.dur];
  const seen = [false, false, false, false];
  const firstV = s.firstV;
  const lastV = s.lastV;
  durations[firstV]! += s.firstT - start;
  durations[lastV]! += end - s.lastT;
  let downtime = s.dt016;
  let count = s.downCnt;
  if (firstV === DOWN) {
    downtime += s.firstT - start;
    count++;
  }
  let lastDowntime = Number.isNaN(s.lastDT) ? (firstV === DOWN ? s.firstT : 0) : s.lastDT;
  if (lastV === DOWN) {
    downtime += end - s.lastT;
    lastDowntime = end;
  }
  const notUpCount = s.notUpCnt + (firstV === UP ? 0 : 1);
  let lastNotUptime = Number.isNaN(s.lastNUT) ? (firstV === UP ? 0 : s.firstT) : s.lastNUT;
  if (lastV !== UP) lastNotUptime = end;
  // A state is in the map when some point had it: the first, the last, or one whose time was counted.
  seen[firstV] = true;
  seen[lastV] = true;
  for (let code = 0; code < 4; code++) if (s.dur[code]! > 0) seen[code] = true;
  return availabilityStats(start, end, { durations, seen, downtime, lastDowntime, downtimeCount: count, notUpCount, lastNotUptime, samples: s.samples });
}
