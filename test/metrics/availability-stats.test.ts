import { describe, expect, it } from "vitest";
import { availabilityBucketStats } from "../../src/metrics/availability-stats.ts";
import { bucketsFromStep } from "../../src/metrics/buckets.ts";
import { AVAILABILITY_CODE } from "../../src/metrics/model.ts";

const { up: UP, down: DOWN, unknown: UNKNOWN, admin: ADMIN } = AVAILABILITY_CODE;
const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 1_700_000_000_000;

describe("availabilityBucketStats", () => {
  it("research test vector: 60 points a minute apart, every 4th down, one 1 h bucket", () => {
    const ts = Array.from({ length: 60 }, (_, i) => T0 + i * MIN);
    const values = ts.map((_, i) => (i % 4 === 3 ? DOWN : UP));
    const downs = values.filter((v) => v === DOWN).length;
    const [point, ...rest] = availabilityBucketStats({ ts, values }, bucketsFromStep(T0, T0 + HOUR, HOUR));
    expect(rest).toEqual([]);
    // Each DOWN lasts until the next point or, for the last one, until the bucket end.
    expect(point).toEqual({
      start: T0,
      end: T0 + HOUR,
      downtimeDuration: downs * MIN,
      lastDowntime: T0 + HOUR,
      uptimeRatio: 1 - (downs * MIN) / HOUR,
      downtimeCount: downs,
      // 0.2x fields (AvailabilityMetricStatisticsITest bucketPointTest at 0.28)
      durationMap: { up: HOUR - downs * MIN, down: downs * MIN },
      upDuration: HOUR - downs * MIN,
      downDuration: downs * MIN,
      unknownDuration: 0,
      adminDuration: 0,
      notUpDuration: downs * MIN,
      lastNotUptime: T0 + HOUR,
      notUpCount: downs,
      upCount: 60 - downs,
      samples: 60,
      empty: false,
    });
    expect(point).toMatchObject({ downtimeDuration: 15 * MIN, uptimeRatio: 0.75, downtimeCount: 15 });
  });

  it("a first DOWN point counts from the bucket start", () => {
    const [p] = availabilityBucketStats(
      { ts: [T0 + 10 * MIN, T0 + 20 * MIN], values: [DOWN, UP] },
      bucketsFromStep(T0, T0 + HOUR, HOUR),
    );
    expect(p).toMatchObject({ downtimeDuration: 20 * MIN, downtimeCount: 1, lastDowntime: T0 + 20 * MIN });
  });

  it("consecutive DOWN points are one downtime", () => {
    const [p] = availabilityBucketStats(
      { ts: [T0, T0 + 5 * MIN, T0 + 10 * MIN, T0 + 15 * MIN], values: [UP, DOWN, DOWN, UP] },
      bucketsFromStep(T0, T0 + HOUR, HOUR),
    );
    expect(p).toMatchObject({ downtimeDuration: 10 * MIN, downtimeCount: 1, lastDowntime: T0 + 15 * MIN });
  });

  it("UNKNOWN stops the clock without adding time, and a DOWN after it is a new downtime", () => {
    const [p] = availabilityBucketStats(
      { ts: [T0, T0 + 5 * MIN, T0 + 10 * MIN, T0 + 20 * MIN], values: [DOWN, UNKNOWN, DOWN, UP] },
      bucketsFromStep(T0, T0 + HOUR, HOUR),
    );
    // Start→first DOWN adds 0; DOWN→UNKNOWN adds nothing; DOWN(10)→UP(20) adds 10 min.
    expect(p).toMatchObject({ downtimeDuration: 10 * MIN, downtimeCount: 2, lastDowntime: T0 + 20 * MIN });
  });

  it("0.2x fields: each interval counts for the state that starts it; UNKNOWN and ADMIN are not up", () => {
    const [p] = availabilityBucketStats(
      { ts: [T0 + 10 * MIN, T0 + 20 * MIN, T0 + 30 * MIN, T0 + 40 * MIN], values: [UP, ADMIN, UNKNOWN, UP] },
      bucketsFromStep(T0, T0 + HOUR, HOUR),
    );
    expect(p).toMatchObject({
      durationMap: { up: 40 * MIN, admin: 10 * MIN, unknown: 10 * MIN },
      upDuration: 40 * MIN,
      adminDuration: 10 * MIN,
      unknownDuration: 10 * MIN,
      downDuration: 0,
      notUpDuration: 20 * MIN,
      lastNotUptime: T0 + 40 * MIN,
      notUpCount: 1,
      // as upstream: samples − notUpCount, and notUpCount counts entries into not-up, not points
      upCount: 3,
      samples: 4,
      // 0.16's downtime counts DOWN only: admin time is not downtime there.
      downtimeDuration: 0,
      uptimeRatio: 1,
    });
  });

  it("all UP: no downtime, lastDowntime 0, ratio 1", () => {
    const [p] = availabilityBucketStats({ ts: [T0, T0 + MIN], values: [UP, UP] }, bucketsFromStep(T0, T0 + HOUR, HOUR));
    expect(p).toMatchObject({ downtimeDuration: 0, lastDowntime: 0, uptimeRatio: 1, downtimeCount: 0, empty: false });
  });

  it("returns every bucket, empty ones as {start, end, empty}", () => {
    const buckets = bucketsFromStep(T0, T0 + 3 * HOUR, HOUR);
    const out = availabilityBucketStats({ ts: [T0 + HOUR + MIN], values: [DOWN] }, buckets);
    expect(out[0]).toEqual({ start: T0, end: T0 + HOUR, samples: 0, upCount: 0, empty: true });
    expect(out[1]).toMatchObject({ downtimeDuration: HOUR, downtimeCount: 1, lastDowntime: T0 + 2 * HOUR, uptimeRatio: 0 });
    expect(out[2]).toEqual({ start: T0 + 2 * HOUR, end: T0 + 3 * HOUR, samples: 0, upCount: 0, empty: true });
  });

  it("splits a series across buckets, each bucket on its own", () => {
    const buckets = bucketsFromStep(T0, T0 + 2 * HOUR, HOUR);
    const out = availabilityBucketStats(
      { ts: [T0 + 50 * MIN, T0 + HOUR + 10 * MIN], values: [DOWN, UP] },
      buckets,
    );
    // Bucket 0 ends down (10 min to its end); bucket 1 starts with UP and so has no downtime.
    expect(out[0]).toMatchObject({ downtimeDuration: 60 * MIN, lastDowntime: T0 + HOUR, downtimeCount: 1 });
    expect(out[1]).toMatchObject({ downtimeDuration: 0, downtimeCount: 0 });
  });
});
