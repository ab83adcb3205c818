import { describe, expect, it } from "vitest";
import { MAX_PATTERN_LENGTH, MAX_PROGRAM_SIZE, PatternError, UserPattern } from "../../src/regex/user-pattern.ts";

const fails = (source: string, message: RegExp) => {
  expect(() => UserPattern.compile(source)).toThrow(PatternError);
  expect(() => UserPattern.compile(source)).toThrow(message);
};

describe("user patterns (RE2, linear time)", () => {
  it("match the whole value, as Java's String.matches", () => {
    const p = UserPattern.compile("web|db");
    expect(p.test("web")).toBe(true);
    expect(p.test("db")).toBe(true);
    expect(p.test("webserver")).toBe(false);
    expect(UserPattern.compile("host-[0-9]+").test("host-12")).toBe(true);
    expect(UserPattern.compile("host-[0-9]+").test("xhost-12")).toBe(false);
    // Alternation binds inside the whole match: "a)|(b" stays invalid rather than becoming valid by wrapping.
    fails("a)|(b", /unexpected \)/);
  });

  it("support what tag filters commonly use: classes, counts, \\Q…\\E, named groups, case-insensitivity", () => {
    expect(UserPattern.compile("\\d{2,3}\\.\\w+").test("12.abc")).toBe(true);
    expect(UserPattern.compile("\\Qa.b\\E").test("a.b")).toBe(true);
    expect(UserPattern.compile("\\Qa.b\\E").test("axb")).toBe(false);
    expect(UserPattern.compile("(?<host>[a-z]+)-\\d").test("web-1")).toBe(true);
    expect(UserPattern.compile("(?i)WEB").test("web")).toBe(true);
    expect(UserPattern.compile("web", { ignoreCase: true }).test("WeB")).toBe(true);
    expect(UserPattern.compile("\\p{L}+").test("été")).toBe(true);
  });

  it("refuse backtracking-only constructs with a reason", () => {
    fails("(?=a)a", /invalid regular expression: invalid or unsupported Perl syntax/);
    fails("(a)\\1", /invalid escape sequence/);
    fails("a*+", /invalid nested repetition operator/);
    fails("**", /missing argument to repetition operator/);
  });

  it("bound the pattern's length and its compiled size, naming the limit", () => {
    expect(UserPattern.compile("a".repeat(MAX_PATTERN_LENGTH)).test("a".repeat(MAX_PATTERN_LENGTH))).toBe(true);
    fails("a".repeat(MAX_PATTERN_LENGTH + 1), new RegExp(`at most ${MAX_PATTERN_LENGTH} are accepted`));
    fails(".{0,1000}.{0,1000}.{0,1000}", new RegExp(`too complex \\(\\d+ instructions compiled; at most ${MAX_PROGRAM_SIZE}\\)`));
    fails("x{1001}", /invalid repeat count/);
  });

  it("answer the patterns that made the backtracking engine hang, at once", () => {
    // (a+)+$ over "aaa…a!" takes exponential time with backtracking: 30 a's alone took seconds.
    const evil = UserPattern.compile("(a+)+$");
    const ids = Array.from({ length: 20 }, (_, i) => `${"a".repeat(30 + i)}!`);
    expect(ids.filter((id) => evil.test(id))).toEqual([]);
    expect(evil.test("a".repeat(100_000))).toBe(true);
    expect(UserPattern.compile("(x+x+)+y").test("x".repeat(5000))).toBe(false);
  });
});
