import type { CompareOperator } from "../model.ts";
import { compareWith } from "./operators.ts";

/** dataId op (data2Multiplier × data2Id), each side being the latest value of its dataId. */
export function compareMatches(op: CompareOperator, multiplier: number, value1: number, value2: number): boolean {
  return compareWith(op, value1, multiplier * value2);
}
