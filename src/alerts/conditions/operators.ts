import type { CompareOperator } from "../model.ts";

/** `a op b` for the LT/GT/LTE/GTE operators shared by threshold, compare and rate conditions. */
export function compareWith(op: CompareOperator, a: number, b: number): boolean {
  switch (op) {
    case "LT":
      return a < b;
    case "GT":
      return a > b;
    case "LTE":
      return a <= b;
    case "GTE":
      return a >= b;
  }
}

/**
 * A datum's value as a number, or NaN when it is not numeric. Stricter than `Number()`,
 * which reads "" and " " as 0.
 */
export function numericValue(value: string | number): number {
  if (typeof value === "number") return value;
  if (value.length === 0 || value.trim().length === 0) return Number.NaN;
  return Number(value);
}
