import * as z from "zod";
import { ApiError } from "../errors.ts";
import { BUCKET_PARAM_REQUIRED, bucketConfig, bucketParamsProblem } from "../../metrics/buckets.ts";
import { parseDuration } from "../../metrics/duration.ts";
import { FROM_EARLIEST_WITH_RANGE, fromEarliestRange } from "../../metrics/from-earliest.ts";
import type { MetricDefinition } from "../../metrics/model.ts";
import { effectiveLimit, resolveOrder } from "../../metrics/order.ts";
import { parsePercentiles } from "../../metrics/percentiles-param.ts";
import { parseTimeParam, resolveTimeRange, type TimeRange } from "../../metrics/time-range.ts";
import { Resolutions } from "../../metrics/rollup/tier-stats.ts";
import type { RawRead, StatsRead } from "../../metrics/queries.ts";
import type { MetricsReadDeps } from "./read-deps.ts";

/**
 * Turns the range, order and bucket parameters of a read (from a query string or a POST body,
 * which carry the same names) into what the read functions take. Shared by every read route.
 */

export interface TimeParams {
  start?: string | number;
  end?: string | number;
  fromEarliest?: boolean;
}

export interface SortParams {
  limit?: number;
  order?: string;
}

export interface BucketParams {
  buckets?: number;
  bucketDuration?: string;
  percentiles?: string;
}

/** A timestamp in ms or a relative time (`-11mn`) in a POST body, as a number or a string. */
export const timeField = z.union([z.number(), z.string()]).optional();

/** `percentiles` of a POST body may be a list; it is joined into the query-string form. */
export const percentilesText = (p: string | (string | number)[] | undefined) => (Array.isArray(p) ? p.join(",") : p);

export const nowOf = (deps: MetricsReadDeps) => (deps.now ?? Date.now)();

/**
 * The range of a read: [start, end) with the defaults, or with `fromEarliest` everything the
 * metrics hold (see fromEarliestRange). Undefined means "nothing to read": fromEarliest over metrics
 * that do not exist.
 */
export async function readRange(
  deps: MetricsReadDeps,
  p: TimeParams,
  defs: () => Promise<readonly MetricDefinition[]>,
): Promise<TimeRange | undefined> {
  const now = nowOf(deps);
  const start = parseTimeParam("start", p.start, now);
  const end = parseTimeParam("end", p.end, now);
  if (!p.fromEarliest) return resolveTimeRange(start, end, now);
  if (start !== undefined || end !== undefined) throw new ApiError(400, FROM_EARLIEST_WITH_RANGE);
  return fromEarliestRange(await defs(), now, deps.defaultRetentionDays);
}

/** Order and limit of a raw read; the default order depends on which bounds were given. */
export function rawRead(range: TimeRange, t: TimeParams, s: SortParams): RawRead {
  const given = (v: string | number | undefined) => v !== undefined && String(v).trim() !== "";
  return {
    range,
    order: resolveOrder(s.order, s.limit, given(t.start), given(t.end)),
    limit: effectiveLimit(s.limit),
  };
}

/** Buckets and percentiles over a range; a bucket parameter is required. */
export function statsRead(range: TimeRange, b: BucketParams, fromEarliest: boolean | undefined): StatsRead {
  const buckets = bucketConfig(
    { buckets: b.buckets, bucketDuration: b.bucketDuration === undefined ? undefined : parseDuration(b.bucketDuration) },
    range,
  );
  if (!buckets) throw new ApiError(400, BUCKET_PARAM_REQUIRED);
  return { buckets, percentiles: b.percentiles ? parsePercentiles(b.percentiles) : undefined, fromEarliest, seen: new Resolutions() };
}

/**
 * Bucket parameters are checked before anything is looked up: one is required, and what is
 * wrong with them whatever the range (both given, a count or step not positive) is a 400 at
 * once, also for a metric that is unknown or holds no data.
 */
export function requireBucketParam(b: BucketParams): void {
  if (b.buckets === undefined && b.bucketDuration === undefined) throw new ApiError(400, BUCKET_PARAM_REQUIRED);
  const problem = bucketParamsProblem({ buckets: b.buckets, bucketDuration: b.bucketDuration === undefined ? undefined : parseDuration(b.bucketDuration) });
  if (problem) throw new ApiError(400, problem);
}
