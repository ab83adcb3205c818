import { type CompareOperator, RATE_PERIOD_MS, type RateDirection, type RatePeriod } from "../model.ts";
import { compareWith } from "./operators.ts";

/**
 * The rate between two data points: value change per period. The result is never negative:
 * with NA it is the absolute change; with INCREASING (DECREASING) a fall (rise) is a counter
 * reset, and undefined tells the caller to ignore that pair. Also undefined when time does not advance.
 */
export function rateOf(
  direction: RateDirection,
  period: RatePeriod,
  previousTime: number,
  previousValue: number,
  time: number,
  value: number,
): number | undefined {
  const dt = time - previousTime;
  if (!(dt > 0)) return undefined;
  let delta: number;
  if (direction === "INCREASING") delta = value - previousValue;
  else if (direction === "DECREASING") delta = previousValue - value;
  else delta = Math.abs(value - previousValue);
  if (delta < 0) return undefined;
  return delta / (dt / RATE_PERIOD_MS[period]);
}

export function rateMatches(op: CompareOperator, threshold: number, rate: number): boolean {
  return compareWith(op, rate, threshold);
}
