import type { CompareCondition, CompareOperator } from "../model.ts";
import { compareWith, fmt } from "./operators.ts";

/** dataId op (data2Multiplier × data2Id), each side being the latest value of its dataId. */
export function compareMatches(op: CompareOperator, multiplier: number, value1: number, value2: number): boolean {
  return compareWith(op, value1, multiplier * value2);
}

export function compareDisplay(c: Pick<CompareCondition, "dataId" | "operator" | "data2Id" | "data2Multiplier">): string {
  return `${c.dataId} ${c.operator} ${fmt(c.data2Multiplier)} × ${c.data2Id}`;
}
