import type { AvailabilityBucketPoint, AvailabilityStats } from "./bucket-points.ts";
import type { Buckets } from "./buckets.ts";
import { AVAILABILITY_CODE, AVAILABILITY_VALUES, type Availability } from "./model.ts";
import type { Series } from "./series.ts";

const DOWN = AVAILABILITY_CODE.down;
const UP = AVAILABILITY_CODE.up;

/**
 * Availability stats per bucket of an ascending series of availability codes, with the fields
 * of both generations. Every bucket is returned, ascending.
 *
 * 0.16 (`downtimeDuration`, `lastDowntime`, `uptimeRatio`, `downtimeCount`): downtime accrues
 * from the bucket start to a first DOWN point, between consecutive points while down, and from a
 * final DOWN point to the bucket end; each entry into DOWN counts once. An UNKNOWN (or ADMIN)
 * point stops the downtime clock without adding the time since the last DOWN point, and a DOWN
 * after it counts as a new downtime. uptimeRatio is 1 − downtime / bucket length.
 *
 * 0.2x (`upDuration` … `samples`): every interval is credited to the state of the point that
 * starts it (the first point's state also covers the time from the bucket start), and UNKNOWN
 * and ADMIN count as "not up" like DOWN.
 */
export function availabilityBucketStats(series: Series, buckets: Buckets): AvailabilityBucketPoint[] {
  const { ts, values } = series;
  const n = ts.length;
  const out: AvailabilityBucketPoint[] = new Array(buckets.count);
  const durations = [0, 0, 0, 0]; // by code: down, up, unknown, admin
  const seen = [false, false, false, false];
  let j = 0;
  while (j < n && ts[j]! < buckets.start) j++;
  for (let b = 0; b < buckets.count; b++) {
    const start = buckets.start + b * buckets.step;
    const end = start + buckets.step;
    if (j >= n || ts[j]! >= end) {
      out[b] = { start, end, samples: 0, upCount: 0, empty: true };
      continue;
    }
    durations.fill(0);
    seen.fill(false);
    let downtime = 0;
    let lastDowntime = 0;
    let count = 0;
    let prevT = ts[j]!;
    let prevV = values[j]!;
    let samples = 1;
    seen[prevV] = true;
    durations[prevV]! += prevT - start;
    let notUpCount = prevV === UP ? 0 : 1;
    let lastNotUptime = prevV === UP ? 0 : prevT;
    if (prevV === DOWN) {
      downtime += prevT - start;
      lastDowntime = prevT;
      count++;
    }
    for (j++; j < n && ts[j]! < end; j++) {
      const t = ts[j]!;
      const v = values[j]!;
      samples++;
      seen[v] = true;
      durations[prevV]! += t - prevT;
      if (v !== UP) {
        if (prevV === UP) notUpCount++;
        lastNotUptime = t;
      } else if (prevV !== UP) lastNotUptime = t;
      if (v === DOWN) {
        lastDowntime = t;
        if (prevV === DOWN) downtime += t - prevT;
        else count++;
      } else if (v === UP && prevV === DOWN) {
        downtime += t - prevT;
        lastDowntime = t;
      }
      prevT = t;
      prevV = v;
    }
    durations[prevV]! += end - prevT;
    if (prevV !== UP) lastNotUptime = end;
    if (prevV === DOWN) {
      downtime += end - prevT;
      lastDowntime = end;
    }
    out[b] = availabilityStats(start, end, { durations, seen, downtime, lastDowntime, downtimeCount: count, notUpCount, lastNotUptime, samples });
  }
  return out;
}

/** What a scan of one bucket's availability points counted, by state code (down, up, unknown, admin). */
export interface AvailabilityTally {
  durations: readonly number[];
  seen: readonly boolean[];
  downtime: number;
  lastDowntime: number;
  downtimeCount: number;
  notUpCount: number;
  lastNotUptime: number;
  samples: number;
}

/** The stats of bucket [start, end), both generations' fields, from what its scan counted. */
export function availabilityStats(start: number, end: number, t: AvailabilityTally): AvailabilityStats {
  const [downDuration, upDuration, unknownDuration, adminDuration] = t.durations as [number, number, number, number];
  const durationMap: Partial<Record<Availability, number>> = {};
  for (let code = 0; code < t.durations.length; code++) if (t.seen[code]) durationMap[AVAILABILITY_VALUES[code]!] = t.durations[code]!;
  return {
    start,
    end,
    downtimeDuration: t.downtime,
    lastDowntime: t.lastDowntime,
    uptimeRatio: 1 - t.downtime / (end - start),
    downtimeCount: t.downtimeCount,
    durationMap,
    upDuration,
    downDuration,
    unknownDuration,
    adminDuration,
    notUpDuration: downDuration + unknownDuration + adminDuration,
    lastNotUptime: t.lastNotUptime,
    notUpCount: t.notUpCount,
    upCount: t.samples - t.notUpCount,
    samples: t.samples,
    empty: false,
  };
}
