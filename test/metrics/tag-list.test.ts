import { describe, expect, it } from "vitest";
import { parseTagList, parseTagNames } from "../../src/metrics/tag-list.ts";
import { expectApiError } from "../helpers/api-error.ts";

describe("parseTagList", () => {
  it("parses name:value pairs in order", () => {
    expect([...parseTagList("a1:x,b2:y|z,c:*")]).toEqual([
      ["a1", "x"],
      ["b2", "y|z"],
      ["c", "*"],
    ]);
  });

  it("splits at the first colon, so values may contain colons", () => {
    expect(parseTagList("d1:B:A").get("d1")).toBe("B:A");
  });

  it("URL-decodes values (%2C %3A %2F and + for space)", () => {
    const tags = parseTagList("c1:C%2CD,d1:B%3AA,a1:A%2FB,s:a+b,u:%C3%A9");
    expect(tags.get("c1")).toBe("C,D");
    expect(tags.get("d1")).toBe("B:A");
    expect(tags.get("a1")).toBe("A/B");
    expect(tags.get("s")).toBe("a b");
    expect(tags.get("u")).toBe("é");
  });

  it("tolerates one trailing comma, keeps the last value of a repeated name", () => {
    expect([...parseTagList("a:1,")]).toEqual([["a", "1"]]);
    expect(parseTagList("a:1,a:2").get("a")).toBe("2");
  });

  it("keeps spaces inside names and values", () => {
    expect([...parseTagList("  a  1   :   A")]).toEqual([["  a  1   ", "   A"]]);
  });

  it("returns an empty list for the empty string", () => {
    expect(parseTagList("").size).toBe(0);
  });

  it("reads a bare name as the tag being present (`*`), alone or beside pairs", () => {
    expect([...parseTagList("novalue")]).toEqual([["novalue", "*"]]);
    expect([...parseTagList("novalue,other:y")]).toEqual([
      ["novalue", "*"],
      ["other", "y"],
    ]);
  });

  it.each([
    [":x", "empty name"],
    [",a:1", "leading comma"],
    ["a:1,,b:2", "double comma"],
    [",", "lone comma"],
    ["a:1,,", "double trailing comma"],
    ["   ", "blank"],
    ["a:", "empty value"],
    ["a:  ", "blank value"],
    ["  :x", "blank name"],
    ["a:%zz", "bad escape"],
    ["a:%E", "truncated escape"],
    ["a:%C3", "bad UTF-8"],
  ])("%j is a 400 (%s)", (text) => {
    expectApiError(() => parseTagList(text), 400, `Invalid tags: ${text}`);
  });
});

describe("parseTagNames", () => {
  it("takes names, ignoring values after a colon", () => {
    expect(parseTagNames("a2,b1:B")).toEqual(["a2", "b1"]);
    expect(parseTagNames("x")).toEqual(["x"]);
  });

  it("lists a repeated name once", () => {
    expect(parseTagNames("a,a:1")).toEqual(["a"]);
  });

  it.each([",", ":5", "a,", ",a", "a,,b", "a:b:c", " ", "  :x"])("%j is a 400", (text) => {
    expectApiError(() => parseTagNames(text), 400, `Invalid tag list: ${text}`);
  });
});
