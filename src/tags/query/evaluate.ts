import type { TagQuery, TagValue } from "./ast.ts";

function valueMatches(v: TagValue, actual: string): boolean {
  return v.kind === "text" ? v.text === actual : v.re.test(actual);
}

/** Whether an item with these tags satisfies the query. Negations still require the key. */
export function matchesTags(q: TagQuery, tags: Readonly<Record<string, string>> | undefined): boolean {
  switch (q.kind) {
    case "and":
      return matchesTags(q.left, tags) && matchesTags(q.right, tags);
    case "or":
      return matchesTags(q.left, tags) || matchesTags(q.right, tags);
    case "has":
      return tags !== undefined && Object.hasOwn(tags, q.key);
    case "hasNot":
      return tags === undefined || !Object.hasOwn(tags, q.key);
  }
  if (tags === undefined || !Object.hasOwn(tags, q.key)) return false;
  const actual = tags[q.key]!;
  if (q.kind === "equals") return valueMatches(q.value, actual) !== q.negate;
  const any = q.values.some((v) => valueMatches(v, actual));
  return any !== q.negate;
}

/** The tag names a query mentions, in order of first appearance. */
export function tagQueryKeys(q: TagQuery, out: string[] = []): string[] {
  if (q.kind === "and" || q.kind === "or") {
    tagQueryKeys(q.left, out);
    tagQueryKeys(q.right, out);
  } else if (!out.includes(q.key)) out.push(q.key);
  return out;
}
