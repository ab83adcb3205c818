import type { CompareOperator, ThresholdCondition } from "../model.ts";
import { compareWith, fmt } from "./operators.ts";

export function thresholdMatches(op: CompareOperator, threshold: number, value: number): boolean {
  return compareWith(op, value, threshold);
}

export function thresholdDisplay(c: Pick<ThresholdCondition, "dataId" | "operator" | "threshold">): string {
  return `${c.dataId} ${c.operator} ${fmt(c.threshold)}`;
}
