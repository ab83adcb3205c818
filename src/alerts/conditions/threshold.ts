import type { CompareOperator, } from "../model.ts";
import { compareWith } from "./operators.ts";

export function thresholdMatches(op: CompareOperator, threshold: number, value: number): boolean {
  return compareWith(op, value, threshold);
}
