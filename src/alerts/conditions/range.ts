import type { RangeOperator, ThresholdRangeCondition } from "../model.ts";

type RangeFields = Pick<ThresholdRangeCondition, "operatorLow" | "operatorHigh" | "thresholdLow" | "thresholdHigh" | "inRange">;

function aboveLow(op: RangeOperator, low: number, v: number): boolean {
  return op === "INCLUSIVE" ? v >= low : v > low;
}

function belowHigh(op: RangeOperator, high: number, v: number): boolean {
  return op === "INCLUSIVE" ? v <= high : v < high;
}

/** With inRange the value must lie within the interval, without it outside (either side). */
export function rangeMatches(c: RangeFields, value: number): boolean {
  const inside = aboveLow(c.operatorLow, c.thresholdLow, value) && belowHigh(c.operatorHigh, c.thresholdHigh, value);
  return inside === c.inRange;
}
