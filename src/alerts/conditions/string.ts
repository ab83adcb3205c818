import { tryCompileUserPattern } from "../../regex/user-pattern.ts";
import type { StringCondition } from "../model.ts";

type StringFields = Pick<StringCondition, "operator" | "pattern" | "ignoreCase">;

/**
 * Compiles a string condition into a predicate. MATCH is a whole-value regular expression
 * match (Java's `String.matches`); an invalid pattern never matches. With ignoreCase both
 * sides compare in lower case; MATCH uses the regex's case-insensitive flag instead.
 */
export function compileStringMatcher(c: StringFields): (value: string) => boolean {
  if (c.operator === "MATCH") {
    const re = tryCompileUserPattern(c.pattern, { ignoreCase: c.ignoreCase });
    if (re instanceof Error) return () => false;
    return (v) => re.test(v);
  }
  const fold = c.ignoreCase;
  const p = fold ? c.pattern.toLowerCase() : c.pattern;
  const norm = fold ? (v: string) => v.toLowerCase() : (v: string) => v;
  switch (c.operator) {
    case "EQUAL":
      return (v) => norm(v) === p;
    case "NOT_EQUAL":
      return (v) => norm(v) !== p;
    case "STARTS_WITH":
      return (v) => norm(v).startsWith(p);
    case "ENDS_WITH":
      return (v) => norm(v).endsWith(p);
    case "CONTAINS":
      return (v) => norm(v).includes(p);
  }
}

export function stringMatches(c: StringFields, value: string): boolean {
  return compileStringMatcher(c)(value);
}
