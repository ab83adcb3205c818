import { PatternError, UserPattern } from "../../regex/user-pattern.ts";

/** A tag value to match: an exact text, or a whole-value regular expression (quoted in the query). */
export type TagValue = { kind: "text"; text: string } | { kind: "regex"; source: string; re: UserPattern };

export type TagQuery =
  | { kind: "has"; key: string }
  | { kind: "hasNot"; key: string }
  /** key = value (negate: key != value; the key must still be present) */
  | { kind: "equals"; key: string; value: TagValue; negate: boolean }
  /** key IN [..] (negate: key NOT IN [..]; the key must still be present) */
  | { kind: "in"; key: string; values: TagValue[]; negate: boolean }
  | { kind: "and"; left: TagQuery; right: TagQuery }
  | { kind: "or"; left: TagQuery; right: TagQuery };

export class TagQueryError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = "TagQueryError";
  }
}

/** A quoted value is a regex matched against the whole tag value; `'*'` means any value. */
export function regexValue(source: string, position: number): TagValue {
  const effective = source === "*" ? ".*" : source;
  try {
    return { kind: "regex", source, re: UserPattern.compile(effective) };
  } catch (e) {
    if (!(e instanceof PatternError)) throw e;
    throw new TagQueryError(`${e.message} ('${source}' at position ${position})`, position);
  }
}
