import { ApiError } from "../http/errors.ts";
import type { TimeRange } from "./time-range.ts";

/** `count` buckets of `step` ms from `start`: bucket i is [start + i·step, start + (i+1)·step). */
export interface Buckets {
  start: number;
  step: number;
  count: number;
}

export const BUCKET_PARAM_REQUIRED = "Either the buckets or bucketDuration parameter must be used";
export const BOTH_BUCKET_PARAMS = "Both buckets and bucketDuration parameters are specified";
export const LIMIT_ORDER_WITH_BUCKETS = "Limit and order cannot be used with bucketed results";

const INT32_MAX = 2 ** 31 - 1;
/** Beyond upstream: a request may not ask for more buckets than this (each costs memory). */
export const MAX_BUCKETS = 100_000;

export interface BucketParams {
  /** `buckets`: the desired number of buckets. */
  buckets?: number;
  /** `bucketDuration`, already parsed to ms (see parseDuration). */
  bucketDuration?: number;
}

/**
 * Builds the buckets of a stats request. Returns undefined when neither parameter is given, so
 * the caller chooses between a 400 (BUCKET_PARAM_REQUIRED) and an unbucketed answer. Both
 * parameters, a non-positive count or step, a step that rounds to zero, more than 2^31−1
 * buckets, or a start that is not positive are 400s with upstream's messages.
 */
export function bucketConfig(params: BucketParams, range: TimeRange): Buckets | undefined {
  const { buckets, bucketDuration } = params;
  if (buckets === undefined && bucketDuration === undefined) return undefined;
  const problem = bucketParamsProblem(params);
  if (problem) throw new ApiError(400, problem);
  return buckets !== undefined
    ? bucketsFromCount(range.start, range.end, buckets)
    : bucketsFromStep(range.start, range.end, bucketDuration!);
}

/**
 * What is wrong with the bucket parameters themselves, whatever the range: both given, a count
 * or step that is not positive (upstream's messages). Checked before a read looks anything up,
 * so a metric that is unknown or holds no data gets the same 400 as any other.
 */
export function bucketParamsProblem({ buckets, bucketDuration }: BucketParams): string | undefined {
  if (buckets !== undefined && bucketDuration !== undefined) return BOTH_BUCKET_PARAMS;
  if (buckets !== undefined && !(buckets > 0)) return `count is not positive: ${buckets}`;
  if (bucketDuration !== undefined && !(bucketDuration > 0)) return `step is not positive: ${bucketDuration}`;
  return undefined;
}

/**
 * Exactly `count` buckets over [start, end). The step is the quotient, rounded up when that
 * still leaves the last bucket starting before `end`, so the last bucket may end after `end`.
 */
export function bucketsFromCount(start: number, end: number, count: number): Buckets {
  checkRange(start, end);
  const problem = bucketParamsProblem({ buckets: count });
  if (problem) throw new ApiError(400, problem);
  const span = end - start;
  const [quotient, remainder] = divMod(span, count);
  const step = remainder !== 0 && (count - 1) * (quotient + 1) < span ? quotient + 1 : quotient;
  if (step <= 0) throw new ApiError(400, "Computed step is equal to zero");
  return checked(start, step, count);
}

/** Buckets of `step` ms covering [start, end); one bucket when the step exceeds the range. */
export function bucketsFromStep(start: number, end: number, step: number): Buckets {
  checkRange(start, end);
  const problem = bucketParamsProblem({ bucketDuration: step });
  if (problem) throw new ApiError(400, problem);
  const span = end - start;
  if (step > span) return checked(start, step, 1);
  const [quotient, remainder] = divMod(span, step);
  const count = remainder === 0 ? quotient : quotient + 1;
  if (count > INT32_MAX) throw new ApiError(400, `Computed number of buckets is too big: ${count}`);
  return checked(start, step, count);
}

function checkRange(start: number, end: number): void {
  if (!(end > start)) throw new ApiError(400, `Start is higher than end: ${start}, ${end}`);
}

function checked(start: number, step: number, count: number): Buckets {
  if (count > MAX_BUCKETS) throw new ApiError(400, `Too many buckets requested: ${count}; at most ${MAX_BUCKETS}`);
  if (!(start > 0)) throw new ApiError(400, "start is not positive");
  return { start, step, count };
}

/** Exact integer division for non-negative safe integers (a float quotient can round up). */
function divMod(a: number, b: number): [number, number] {
  let q = Math.floor(a / b);
  let r = a - q * b;
  if (r < 0) {
    q -= 1;
    r += b;
  } else if (r >= b) {
    q += 1;
    r -= b;
  }
  return [q, r];
}

/** Start of bucket `index`. */
export function bucketStart(b: Buckets, index: number): number {
  return b.start + index * b.step;
}
