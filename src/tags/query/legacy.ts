import type { TagQuery } from "./ast.ts";
import { TagQueryError } from "./ast.ts";

/**
 * The deprecated `tags` parameter: comma-separated `name|value` pairs, any of which may match;
 * the value `*` matches any value of the tag. Values are compared exactly.
 */
export function parseLegacyTags(input: string): TagQuery {
  if (input.trim().length === 0) throw new TagQueryError("tags criteria are empty", 0);
  let query: TagQuery | undefined;
  let position = 0;
  for (const token of input.split(",")) {
    const parts = token.split("|");
    if (parts.length !== 2 || parts[0]!.length === 0 || parts[1]!.length === 0) {
      throw new TagQueryError(`invalid tag criteria '${token}' at position ${position}: expected name|value`, position);
    }
    const [key, value] = parts as [string, string];
    const one: TagQuery = value === "*" ? { kind: "has", key } : { kind: "equals", key, value: { kind: "text", text: value }, negate: false };
    query = query ? { kind: "or", left: query, right: one } : one;
    position += token.length + 1;
  }
  return query!;
}
