import type { AvailabilityBucketPoint } from "./bucket-points.ts";
import { emptyBucket } from "./bucket-points.ts";
import type { Buckets } from "./buckets.ts";
import { AVAILABILITY_CODE } from "./model.ts";
import type { Series } from "./series.ts";

const DOWN = AVAILABILITY_CODE.down;
const UP = AVAILABILITY_CODE.up;

/**
 * Availability stats per bucket (0.16 shape) of an ascending series of availability codes.
 * Within a bucket, downtime accrues from the bucket start to a first DOWN point, between
 * consecutive points while down, and from a final DOWN point to the bucket end; each entry into
 * DOWN counts once. As upstream, an UNKNOWN point stops the downtime clock without adding the
 * time since the last DOWN point, and a DOWN after it counts as a new downtime. Every bucket is
 * returned, ascending.
 */
export function availabilityBucketStats(series: Series, buckets: Buckets): AvailabilityBucketPoint[] {
  const { ts, values } = series;
  const n = ts.length;
  const out: AvailabilityBucketPoint[] = new Array(buckets.count);
  let j = 0;
  while (j < n && ts[j]! < buckets.start) j++;
  for (let b = 0; b < buckets.count; b++) {
    const start = buckets.start + b * buckets.step;
    const end = start + buckets.step;
    if (j >= n || ts[j]! >= end) {
      out[b] = emptyBucket(start, end);
      continue;
    }
    let downtime = 0;
    let lastDowntime = 0;
    let count = 0;
    let prevT = ts[j]!;
    let prevV = values[j]!;
    if (prevV === DOWN) {
      downtime += prevT - start;
      lastDowntime = prevT;
      count++;
    }
    for (j++; j < n && ts[j]! < end; j++) {
      const t = ts[j]!;
      const v = values[j]!;
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
    if (prevV === DOWN) {
      downtime += end - prevT;
      lastDowntime = end;
    }
    out[b] = {
      start,
      end,
      downtimeDuration: downtime,
      lastDowntime,
      uptimeRatio: 1 - downtime / buckets.step,
      downtimeCount: count,
      empty: false,
    };
  }
  return out;
}
