import type { Matcher } from "./ast.ts";
import { type Labels, labelValue } from "./labels.ts";

/** True when the label value satisfies the matcher (a missing label has the value ""). */
export function matchesValue(m: Matcher, value: string): boolean {
  switch (m.op) {
    case "=":
      return value === m.value;
    case "!=":
      return value !== m.value;
    case "=~":
      return m.re!.test(value);
    case "!~":
      return !m.re!.test(value);
  }
}

export function matchesAll(labels: Labels, matchers: readonly Matcher[]): boolean {
  for (const m of matchers) if (!matchesValue(m, labelValue(labels, m.name))) return false;
  return true;
}
