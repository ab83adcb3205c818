import { describe, expect, it } from "vitest";
import { compileTagFilter, compileTagValueMatcher } from "../../src/metrics/tag-filter.ts";
import { parseTagList } from "../../src/metrics/tag-list.ts";
import { expectApiError } from "../helpers/api-error.ts";

const filter = (text: string) => compileTagFilter(parseTagList(text));

describe("compileTagValueMatcher", () => {
  it("matches the whole value, not a part", () => {
    const m = compileTagValueMatcher("a", "x");
    expect(m("x")).toBe(true);
    expect(m("xx")).toBe(false);
    expect(m("ax")).toBe(false);
  });

  it("treats the value as a regular expression, alternation included", () => {
    const m = compileTagValueMatcher("a", "x|y");
    expect(["x", "y", "z", "x|y"].map(m)).toEqual([true, true, false, false]);
    expect(compileTagValueMatcher("a", "web.*")("web-01")).toBe(true);
  });

  it("anchors alternation as a whole (x|y does not match 'xz')", () => {
    expect(compileTagValueMatcher("a", "x|y")("xz")).toBe(false);
  });

  it("* means any value", () => {
    const m = compileTagValueMatcher("a", "*");
    expect(m("")).toBe(true);
    expect(m("anything")).toBe(true);
  });

  it("a leading ! negates", () => {
    const m = compileTagValueMatcher("a", "!x|y");
    expect(["x", "y", "z"].map(m)).toEqual([false, false, true]);
  });

  it.each([
    ["**", "**"],
    ["!*", "*"],
    ["a)|(b", "a)|(b"],
    ["[", "["],
  ])("invalid expression %j is a 400", (value, source) => {
    const err = (() => {
      try {
        compileTagValueMatcher("a1", value);
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err?.message.startsWith(`Invalid regular expression for tag a1: ${source} (invalid regular expression: `)).toBe(true);
    expectApiError(() => compileTagValueMatcher("a1", value), 400, err!.message);
  });
});

describe("compileTagFilter", () => {
  it("ANDs the pairs", () => {
    const f = filter("env:prod,role:web|db");
    expect(f({ env: "prod", role: "web" })).toBe(true);
    expect(f({ env: "prod", role: "cache" })).toBe(false);
    expect(f({ env: "dev", role: "web" })).toBe(false);
  });

  it("requires the tag to be present, even for * and negated filters", () => {
    expect(filter("a:*")({ b: "1" })).toBe(false);
    expect(filter("a:!x")({ b: "1" })).toBe(false);
    expect(filter("a:!x")({ a: "y" })).toBe(true);
    expect(filter("a:*")(undefined)).toBe(false);
  });

  it("does not see inherited properties as tags", () => {
    expect(filter("constructor:*")({})).toBe(false);
    expect(filter("toString:*")({ a: "1" })).toBe(false);
  });

  it("accepts everything when the list is empty", () => {
    const f = compileTagFilter(new Map());
    expect(f(undefined)).toBe(true);
    expect(f({ a: "1" })).toBe(true);
  });

  it("fails at compile time on an invalid expression", () => {
    expectApiError(() => filter("a:x,b:**"), 400, /^Invalid regular expression for tag b: \*\* \(invalid regular expression: missing argument to repetition operator/);
  });
});
