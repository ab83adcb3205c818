/** A tag value to match: an exact text, or a whole-value regular expression (quoted in the query). */
export type TagValue = { kind: "text"; text: string } | { kind: "regex"; source: string; re: RegExp };

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
    return { kind: "regex", source, re: new RegExp(`^(?:${effective})$`) };
  } catch (e) {
    throw new TagQueryError(`invalid regular expression '${source}' at position ${position}: ${(e as Error).message}`, position);
  }
}
