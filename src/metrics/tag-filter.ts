import { ApiError } from "../http/errors.ts";
import { PatternError, UserPattern } from "../regex/user-pattern.ts";
import type { Tags } from "./model.ts";

/** Tests one tag value. */
export type TagValueMatcher = (value: string) => boolean;

/**
 * Compiles one filter value of a tag list: `*` accepts any value; otherwise the value is a
 * regular expression that must match the whole tag value, negated by a leading `!`. An invalid
 * expression (`**`, and `!*`, whose rest `*` is not an expression) is a 400.
 */
export function compileTagValueMatcher(name: string, filter: string): TagValueMatcher {
  if (filter === "*") return () => true;
  const negate = filter.startsWith("!");
  const source = negate ? filter.slice(1) : filter;
  let whole: UserPattern;
  try {
    whole = UserPattern.compile(source);
  } catch (e) {
    if (!(e instanceof PatternError)) throw e;
    throw new ApiError(400, `Invalid regular expression for tag ${name}: ${source} (${e.message})`);
  }
  return negate ? (v) => !whole.test(v) : (v) => whole.test(v);
}

/**
 * Compiles a parsed tag list into a predicate on tags (of a metric definition or of a data
 * point). Every pair must hold (AND), and an item lacking a named tag never matches, whatever
 * the filter, negated ones included. An empty list accepts everything.
 */
export function compileTagFilter(filters: Iterable<readonly [string, string]>): (tags?: Tags) => boolean {
  const names: string[] = [];
  const matchers: TagValueMatcher[] = [];
  for (const [name, filter] of filters) {
    names.push(name);
    matchers.push(compileTagValueMatcher(name, filter));
  }
  return (tags) => {
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (tags === undefined || !Object.hasOwn(tags, name)) return false;
      if (!matchers[i]!(tags[name]!)) return false;
    }
    return true;
  };
}
