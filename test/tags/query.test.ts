import { describe, expect, it } from "vitest";
import { matchesTags, parseLegacyTags, parseTagQuery, type TagQuery, TagQueryError, tagQueryKeys } from "../../src/tags/query/index.ts";

const items: Record<string, Record<string, string>> = {
  a: { tagA: "abc" },
  b: { tagA: "def", tagB: "x" },
  c: { tagB: "y", tagC: "e1" },
  d: { tagC: "f7", "tag-d.sub": "v" },
  e: {},
};

/** The names of the items the query selects. */
function select(q: TagQuery): string[] {
  return Object.keys(items).filter((k) => matchesTags(q, items[k]));
}
const sel = (query: string) => select(parseTagQuery(query));

describe("tag query: forms", () => {
  it("a tag name selects items that have the tag; NOT name those that lack it", () => {
    expect(sel("tagA")).toEqual(["a", "b"]);
    expect(sel("not tagA")).toEqual(["c", "d", "e"]);
    expect(sel("tag-d.sub")).toEqual(["d"]);
  });

  it("equality is written = or ==; != needs the tag present with another value", () => {
    expect(sel("tagA = abc")).toEqual(["a"]);
    expect(sel("tagA == abc")).toEqual(["a"]);
    expect(sel("tagA != abc")).toEqual(["b"]);
  });

  it("a quoted value is a regular expression matched against the whole value; '*' matches any", () => {
    expect(sel("tagA = 'a.*'")).toEqual(["a"]);
    expect(sel("tagA = 'b'")).toEqual([]);
    expect(sel("tagA = '*'")).toEqual(["a", "b"]);
    expect(sel("tagA != 'a.*'")).toEqual(["b"]);
  });

  it("IN and NOT IN take bracketed lists of simple or quoted values", () => {
    expect(sel("tagA IN [abc, def]")).toEqual(["a", "b"]);
    expect(sel("tagC in ['e.*', 'g.*']")).toEqual(["c"]);
    expect(sel("tagC NOT IN ['e.*']")).toEqual(["d"]);
    expect(sel("tagA in []")).toEqual([]);
    expect(sel("tagA not in []")).toEqual(["a", "b"]);
  });

  it("AND and OR combine, in any case, with parentheses", () => {
    expect(sel("tagA and tagB")).toEqual(["b"]);
    expect(sel("tagA OR tagC")).toEqual(["a", "b", "c", "d"]);
    expect(sel("tagA or (tagB and tagC in ['e.*', 'f.*'])")).toEqual(["a", "b", "c"]);
    expect(sel("((tagA))")).toEqual(["a", "b"]);
  });

  it("AND and OR bind equally, left to right, as in the upstream grammar", () => {
    // (not tagA or tagB) and tagC — not: not tagA or (tagB and tagC)
    expect(sel("not tagA or tagB and tagC")).toEqual(["c", "d"]);
    expect(sel("tagA and not tagB or tagC")).toEqual(["a", "c", "d"]);
  });

  it("quoted values may contain escaped quotes and spaces", () => {
    const q = parseTagQuery("note = 'it\\'s on'");
    expect(matchesTags(q, { note: "it's on" })).toBe(true);
    expect(matchesTags(q, { note: "its on" })).toBe(false);
  });

  it("builds the expected tree", () => {
    expect(parseTagQuery("a = 1 and not b")).toEqual({
      kind: "and",
      left: { kind: "equals", key: "a", value: { kind: "text", text: "1" }, negate: false },
      right: { kind: "hasNot", key: "b" },
    });
  });
});

describe("tag query: invalid input gets a clear error", () => {
  it.each([
    ["", /empty/],
    ["tagA =", /expected a value .* at position 6 but found the end of the query/],
    ["tagA = *", /unexpected character '\*' at position 7 \(a wildcard value must be quoted/],
    ["tagA and", /expected a tag name at position 8/],
    ["(tagA", /expected '\)'/],
    ["tagA)", /expected AND, OR or the end of the query at position 4 but found '\)'/],
    ["tagA in [a, ]", /expected a value/],
    ["tagA in [a b]", /expected ',' or ']'/],
    ["tagA in a", /expected '\['/],
    ["tagA not b", /expected IN after NOT/],
    ["not (tagA)", /expected a tag name at position 4 but found '\('/],
    ["tagA = 'abc", /unterminated quoted value starting at position 7/],
    ["tagA = '('", /invalid regular expression: missing closing \).*\('\(' at position 7\)/],
    ["-tag", /unexpected character '-' at position 0/],
    ["tagA tagB", /expected AND, OR or the end of the query at position 5 but found 'tagB'/],
    ["and", /expected a tag name at position 0/],
  ])("%j", (query, message) => {
    let err: unknown;
    try {
      parseTagQuery(query);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TagQueryError);
    expect((err as Error).message).toMatch(message);
  });
});

describe("deprecated name|value tags", () => {
  it("any pair may match; values compare exactly; * matches any value", () => {
    expect(select(parseLegacyTags("tagA|abc"))).toEqual(["a"]);
    expect(select(parseLegacyTags("tagA|abc,tagB|y"))).toEqual(["a", "c"]);
    expect(select(parseLegacyTags("tagC|*"))).toEqual(["c", "d"]);
    expect(select(parseLegacyTags("tagA|a.*"))).toEqual([]);
  });

  it("goes through the same evaluator as the query language", () => {
    expect(parseLegacyTags("tagA|abc,tagC|*")).toEqual({
      kind: "or",
      left: { kind: "equals", key: "tagA", value: { kind: "text", text: "abc" }, negate: false },
      right: { kind: "has", key: "tagC" },
    });
  });

  it.each(["tagA", "tagA|b|c", "|b", "a|", "a|b,,c|d", ""])("rejects %j", (input) => {
    expect(() => parseLegacyTags(input)).toThrow(TagQueryError);
  });
});

describe("the metrics dialect (Hawkular Metrics 0.24+)", () => {
  const msel = (query: string) => select(parseTagQuery(query, "metrics"));

  it("= and != compare exactly, quoted or not; ~ and !~ match a regular expression over the whole value", () => {
    expect(msel("tagA = 'abc'")).toEqual(["a"]);
    expect(msel("tagA = 'a.*'")).toEqual([]);
    expect(msel("tagA ~ 'a.*'")).toEqual(["a"]);
    expect(msel("tagA ~ a.c")).toEqual(["a"]);
    expect(msel("tagA !~ 'a.*'")).toEqual(["b"]);
    expect(msel("tagA ~ '*'")).toEqual(["a", "b"]);
  });

  it("every value of an IN list is a regular expression", () => {
    expect(msel("tagC IN [e1, 'f.*']")).toEqual(["c", "d"]);
    expect(msel("tagC NOT IN ['e.*']")).toEqual(["d"]);
  });

  it("the alerts dialect keeps its meaning, and accepts ~ too", () => {
    expect(sel("tagA = 'a.*'")).toEqual(["a"]);
    expect(sel("tagA ~ 'd.*'")).toEqual(["b"]);
  });
});

describe("tagQueryKeys", () => {
  it("lists the names a query mentions, once, in order", () => {
    expect(tagQueryKeys(parseTagQuery("b = 1 OR (a IN [x] AND NOT c) OR b"))).toEqual(["b", "a", "c"]);
  });
});
